// CSV of a table (RFC 4180: comma-separated, CRLF, fields quoted when they hold a comma, a quote
// or a line break), downloaded by the browser. Rates are written as fractions, as the API
// gives them, so a spreadsheet computes with them; an undefined one is an empty field.

type Cell = string | number | null;

function field(value: Cell): string {
  if (value === null) return '';
  const text = String(value);
  // A leading = + - @ would be read as a formula by spreadsheets: a search string is shoppers' text.
  const safe = /^[=+\-@]/.test(text) && typeof value === 'string' ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function csvOf(headings: string[], rows: Cell[][]): string {
  return `${[headings, ...rows].map((row) => row.map(field).join(',')).join('\r\n')}\r\n`;
}

export function download(name: string, csv: string): void {
  const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
