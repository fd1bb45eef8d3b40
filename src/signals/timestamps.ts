// A signal's time as a shop may send it: epoch milliseconds (Fusion's form) or ISO 8601.

// A date and a time with seconds optional, a fraction, and a zone (Z or an offset): a time
// without a zone would be read in the server's own zone, so it is refused.
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;
const DIGITS = /^\d{1,16}$/;
const MAX_MS = 8_640_000_000_000_000;

/** Epoch milliseconds of a sent timestamp, or undefined when it cannot be read. */
export function timestampMs(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  if (DIGITS.test(value)) {
    const ms = Number(value);
    return ms <= MAX_MS ? ms : undefined;
  }
  if (!ISO_DATE_TIME.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}
