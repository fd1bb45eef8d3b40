// A rule's effective start and end as the date-time picker shows them: the API stores an
// ISO 8601 instant; the picker shows and takes the wall-clock time of the browser's time
// zone (`YYYY-MM-DD HH:mm:ss`, no zone of its own).

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** The browser's time zone, as the picker's times are read in it ("Europe/Berlin"). */
export function browserZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'the browser’s time zone';
}

/** A stored instant as the wall-clock time of the browser's zone (null: none, or not a date). */
export function wallOf(iso: string | null | undefined): string | null {
  if (!iso) return null;
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return null;
  return (
    `${pad(at.getFullYear(), 4)}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} ` +
    `${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`
  );
}

/** A wall-clock time of the browser's zone as the instant the API stores (ISO 8601, UTC). */
export function isoOf(wall: string | null | undefined): string | null {
  const parts = wall?.match(/^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/);
  if (!parts) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0'] = parts;
  const at = new Date(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  return Number.isNaN(at.getTime()) ? null : at.toISOString();
}

/** An instant in words, in the browser's zone: "28 Nov 2026, 09:30". */
export function spokenTime(iso: string): string {
  const at = new Date(iso);
  return Number.isNaN(at.getTime())
    ? iso
    : at.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}
