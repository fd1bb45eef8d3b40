// How the Analytics page writes its figures: counts with the browser's separators, rates as
// percentages, an undefined rate (nothing to divide by) as a dash.

export const count = (n: number): string => n.toLocaleString();

/** A fraction 0–1 as a percentage with one decimal; null (no searches to divide by) as "–". */
export const percent = (rate: number | null): string =>
  rate === null ? '–' : `${(rate * 100).toLocaleString(undefined, { maximumFractionDigits: 1 })} %`;

/** An average 1-based position with one decimal; null (no click) as "–". */
export const position = (value: number | null): string =>
  value === null ? '–' : value.toLocaleString(undefined, { maximumFractionDigits: 1 });
