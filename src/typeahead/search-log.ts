import type { Kysely } from 'kysely';
import { NotFoundError, ValidationError } from '../http/errors.js';
import type { Database } from '../storage/schema.js';
import { TimeSlice } from '../storage/time-slice.js';
import { checkTerm } from '../text/term-key.js';
import { selectInstance } from './repository.js';
import type { SearchLogEntryType } from './schemas.js';
import type { CountDelta, FormDelta } from './search-log-repository.js';
import { type SearchLogWriter, writeTogether } from './search-log-writer.js';

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
  writer?: SearchLogWriter,
): Promise<{ accepted: number; rejected: number }> {
  const nowMs = now.getTime();
  const keyed: Array<{ key: string; term: string; at: number; count: number; hits: number | undefined }> = [];
  let rejected = 0;
  const badTimestamps = [];
  // Keying comes before the instance is read: on SQLite a read waits for the one connection,
  // and keying meanwhile lets concurrent requests reach the writer together. Keying 10,000
  // queries takes tens of milliseconds, so the loop serves others meanwhile.
  const slice = new TimeSlice();
  // Shops send the same query many times in a batch (each search of it, or its count): each
  // distinct query is keyed once. Keying is pure, so the memo cannot change an answer.
  const checked = new Map<string, ReturnType<typeof checkTerm>>();
  for (let i = 0; i < entries.length; i++) {
    if (slice.due()) await slice.pass();
    const entry = entries[i]!;
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
    let check = checked.get(entry.query);
    if (check === undefined) {
      check = checkTerm(entry.query);
      checked.set(entry.query, check);
    }
    if (!check.valid) rejected += count;
    else keyed.push({ key: check.key, term: check.term, at, count, hits: entry.hits });
  }
  const instance = await selectInstance(db, id);
  if (!instance) throw new NotFoundError(`no typeahead instance ${id}`);
  if (badTimestamps.length > 0) throw new ValidationError(badTimestamps.slice(0, 20));
  const oldest = nowMs - instance.top_terms_window_days * DAY_MS;
  const counts = new Map<string, CountDelta>();
  const forms = new Map<string, FormDelta>();
  let accepted = 0;
  // The entries of a batch mostly fall in one hour or a few: its name is written once per run.
  let hourStart = Number.NaN;
  let hour = '';
  for (const { key, term, at, count, hits } of keyed) {
    if (slice.due()) await slice.pass();
    // A search that found (almost) nothing teaches typeahead nothing; one logged without its
    // hits counts, as before the setting.
    const tooFew = hits !== undefined && hits < instance.min_hits;
    if (tooFew || at < oldest || at > nowMs + FUTURE_TOLERANCE_MS) {
      rejected += count;
      continue;
    }
    if (!(at >= hourStart && at < hourStart + HOUR_MS)) {
      hourStart = at - (at % HOUR_MS);
      hour = hourOf(at);
    }
    accepted += count;
    const bucket = `${key}\u0000${hour}`;
    const known = counts.get(bucket);
    if (known) known.count += count;
    else counts.set(bucket, { key, hour, count });
    const formId = `${key}\u0000${term}`;
    const form = forms.get(formId);
    if (!form) forms.set(formId, { key, form: term, count, lastHour: hour });
    else {
      form.count += count;
      if (hour > form.lastHour) form.lastHour = hour;
    }
  }
  if (counts.size > 0) {
    const rows = { instanceId: id, counts: [...counts.values()], forms: [...forms.values()] };
    // With a writer, concurrent requests share one commit; without, the rows are written at once.
    await (writer ? writer.write(rows) : writeTogether(db, [rows]));
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
