import type { Kysely } from 'kysely';
import { NotFoundError, ValidationError } from '../http/errors.js';
import type { Database } from '../storage/schema.js';
import { TimeSlice } from '../storage/time-slice.js';
import { checkTerm } from '../text/term-key.js';
import { addSearches, type CountDelta, type FormDelta, selectInstance } from './repository.js';
import type { SearchLogEntryType } from './schemas.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
// Clocks of the shop and of searchdeck differ a little; a search from the near future counts.
const FUTURE_TOLERANCE_MS = 5 * 60_000;

/** The hourly bucket of a moment: `YYYY-MM-DDTHH` in UTC, ordered as text. */
export function hourOf(ms: number): string {
  return new Date(ms - (ms % HOUR_MS)).toISOString().slice(0, 13);
}

/** The first hour inside an instance's trailing window. */
export function windowStartHour(now: Date, windowDays: number): string {
  return hourOf(now.getTime() - windowDays * DAY_MS + HOUR_MS);
}

/**
 * Counts logged searches into hourly buckets per key and tallies their forms; the raw
 * lines are not kept. Empty queries, queries that could never be a term, and searches
 * outside the window are rejected (counted, not an error).
 */
export async function ingestSearches(
  db: Kysely<Database>,
  id: string,
  entries: readonly SearchLogEntryType[],
  now: Date,
): Promise<{ accepted: number; rejected: number }> {
  const instance = await selectInstance(db, id);
  if (!instance) throw new NotFoundError(`no typeahead instance ${id}`);
  const nowMs = now.getTime();
  const oldest = nowMs - instance.top_terms_window_days * DAY_MS;
  const counts = new Map<string, CountDelta>();
  const forms = new Map<string, FormDelta>();
  let accepted = 0;
  let rejected = 0;
  const badTimestamps = [];
  // Keying 10,000 queries takes hundreds of milliseconds: the loop serves others meanwhile.
  const slice = new TimeSlice();
  for (const [i, entry] of entries.entries()) {
    await slice.pass();
    const at = entry.timestamp === undefined ? nowMs : Date.parse(entry.timestamp);
    if (Number.isNaN(at)) {
      badTimestamps.push({
        field: `[${i}].timestamp`,
        message: `[${i}].timestamp must be an ISO 8601 date-time`,
      });
      continue;
    }
    // Both tallies count searches: an entry standing for N searches counts N.
    const count = entry.count ?? 1;
    const check = checkTerm(entry.query);
    if (!check.valid || at < oldest || at > nowMs + FUTURE_TOLERANCE_MS) {
      rejected += count;
      continue;
    }
    const hour = hourOf(at);
    accepted += count;
    const bucket = `${check.key}\u0000${hour}`;
    const known = counts.get(bucket);
    if (known) known.count += count;
    else counts.set(bucket, { key: check.key, hour, count });
    const formId = `${check.key}\u0000${check.term}`;
    const form = forms.get(formId);
    if (!form) forms.set(formId, { key: check.key, form: check.term, count, lastHour: hour });
    else {
      form.count += count;
      if (hour > form.lastHour) form.lastHour = hour;
    }
  }
  if (badTimestamps.length > 0) throw new ValidationError(badTimestamps.slice(0, 20));
  if (counts.size > 0) {
    await db
      .transaction()
      .execute((trx) => addSearches(trx, id, [...counts.values()], [...forms.values()], slice));
  }
  return { accepted, rejected };
}

/** Parses an NDJSON body: one JSON value per non-blank line; a bad line is named. */
export function parseNdjson(text: string): unknown[] {
  const entries: unknown[] = [];
  const lines = text.split('\n');
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    try {
      entries.push(JSON.parse(line));
    } catch {
      throw new ValidationError(
        [{ field: `line ${i + 1}`, message: `line ${i + 1} is not valid JSON` }],
        'invalid-body',
      );
    }
  }
  return entries;
}
