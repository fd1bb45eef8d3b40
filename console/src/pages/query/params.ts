// Solr parameters as the console's text fields hold them: one `name=value` a line, a name
// given on several lines being a repeated parameter (a list).

export type ParamValue = string | number | boolean | string[];

/** The lines of a textarea as parameters; lines without `=` are kept whole as names with an empty value. */
export function paramsOf(text: string): Record<string, string | string[]> {
  const params: Record<string, string | string[]> = {};
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '') continue;
    const equals = trimmed.indexOf('=');
    const name = (equals < 0 ? trimmed : trimmed.slice(0, equals)).trim();
    const value = equals < 0 ? '' : trimmed.slice(equals + 1).trim();
    const before = params[name];
    if (before === undefined) params[name] = value;
    else params[name] = [...(Array.isArray(before) ? before : [before]), value];
  }
  return params;
}

/**
 * Default parameters as a profile stores them: a single value written as a number or as
 * true/false keeps that type, as a profile created through the API would hold it (`rows=10`
 * is 10, not "10"); anything else, "007" included, stays text. Solr reads both alike.
 */
export function defaultsOf(text: string): Record<string, ParamValue> {
  const typed: Record<string, ParamValue> = {};
  for (const [name, value] of Object.entries(paramsOf(text))) {
    if (Array.isArray(value)) typed[name] = value;
    else if (value === 'true' || value === 'false') typed[name] = value === 'true';
    else if (value !== '' && String(Number(value)) === value) typed[name] = Number(value);
    else typed[name] = value;
  }
  return typed;
}

/** Parameters as `name=value` lines, a list as one line per value. */
export function linesOf(params: Record<string, ParamValue> | undefined): string {
  return Object.entries(params ?? {})
    .flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map((v) => `${name}=${v}`))
    .join('\n');
}

/** A comma-separated list, without blanks. */
export function listOf(text: string): string[] {
  return text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
}
