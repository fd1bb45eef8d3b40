import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { NotFoundError } from '../http/errors.js';
import type { ChangeFeed } from '../storage/change-feed.js';
import type { Store } from '../storage/database.js';
import type { Database } from '../storage/schema.js';
import { isPrivateQuery } from './personal-data-filter.js';
import {
  bumpVersion,
  type KeyTotal,
  pruneAll,
  pruneKeyRange,
  replaceTopTerms,
  selectDisplayForms,
  selectInstance,
  selectKeyTotals,
  selectRankedKeys,
  selectTerms,
  type TopTermRow,
} from './repository.js';
import { windowStartHour } from './search-log.js';

/** The size of the top-searched set. */
export const MAX_TOP_SEARCHED = 1000;

// Each batch of keys should take about this long, so that on SQLite (whose driver
// is synchronous) the event loop is never held for long; batches grow and shrink to fit.
const TARGET_BATCH_MS = 5;
const MIN_BATCH_KEYS = 50;
const MAX_BATCH_KEYS = 50_000;

/** More searched first; ties by key, so the result does not depend on scan order. */
function byRank(a: KeyTotal, b: KeyTotal): number {
  return b.total - a.total || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

function atLeastTwoCharacters(key: string): boolean {
  if (key.length > 2) return true;
  if (key.length < 2) return false;
  // Two UTF-16 units may be one character written as a surrogate pair.
  const first = key.charCodeAt(0);
  return first < 0xd800 || first > 0xdbff;
}

/**
 * Recomputes the top-searched set of one instance from its hourly buckets: the most
 * searched keys of the trailing window with at least `minCount` searches, at least two
 * characters, not excluded and not private; and deletes the buckets that left the window.
 * Keys are read in batches in key order, each batch bounded in rows, and the best are kept
 * in a bounded buffer, so neither memory nor any single step grows with the log.
 * The other nodes hear of the new set through `feed`.
 */
export async function refreshTopSearched(
  store: Store,
  feed: ChangeFeed,
  id: string,
  now: Date,
): Promise<void> {
  const db = store.db;
  const instance = await selectInstance(db, id);
  if (!instance) throw new NotFoundError(`no typeahead instance ${id}`);
  const fromHour = windowStartHour(now, instance.top_terms_window_days);
  const excluded = new Set(
    (await selectTerms(db, id)).filter((t) => t.list === 'excluded').map((t) => t.key),
  );
  const eligible = (row: KeyTotal) =>
    row.total >= instance.min_count &&
    atLeastTwoCharacters(row.key) &&
    !excluded.has(row.key) &&
    !isPrivateQuery(row.key);
  // The one storage difference: with an asynchronous driver (PostgreSQL) the database
  // aggregates and ranks while the event loop serves requests; a synchronous one (SQLite)
  // blocks, so there the keys are read in short batches.
  const top = store.synchronousDriver
    ? await rankInBatches(db, id, fromHour, eligible)
    : await rankInDatabase(db, id, fromHour, instance.min_count, eligible);
  const forms = await selectDisplayForms(
    db,
    id,
    top.map((c) => c.key),
  );
  const rows: TopTermRow[] = top.map((c) => ({
    key: c.key,
    term: forms.get(c.key) ?? c.key,
    count: c.total,
  }));
  await db.transaction().execute(async (trx) => {
    await replaceTopTerms(trx, id, rows);
    if (await bumpVersion(trx, id, {})) await feed.announce(trx, id);
  });
}

async function rankInDatabase(
  db: Kysely<Database>,
  id: string,
  fromHour: string,
  minCount: number,
  eligible: (row: KeyTotal) => boolean,
): Promise<KeyTotal[]> {
  const top: KeyTotal[] = [];
  const page = 4 * MAX_TOP_SEARCHED;
  for (let offset = 0; top.length < MAX_TOP_SEARCHED; offset += page) {
    const rows = await selectRankedKeys(db, id, fromHour, minCount, offset, page);
    for (const row of rows) if (top.length < MAX_TOP_SEARCHED && eligible(row)) top.push(row);
    if (rows.length < page) break;
  }
  await pruneAll(db, id, fromHour);
  return top;
}

async function rankInBatches(
  db: Kysely<Database>,
  id: string,
  fromHour: string,
  eligible: (row: KeyTotal) => boolean,
): Promise<KeyTotal[]> {
  let best: KeyTotal[] = [];
  let batchKeys = 250;
  let after: string | undefined;
  for (;;) {
    const started = performance.now();
    const rows = await selectKeyTotals(db, id, after, fromHour, batchKeys);
    if (rows.length === 0) break;
    for (const row of rows) if (eligible(row)) best.push(row);
    if (best.length > 4 * MAX_TOP_SEARCHED) best = best.sort(byRank).slice(0, MAX_TOP_SEARCHED);
    // A delete is a commit, and on SQLite a synchronous fsync: only when there is something old.
    if (rows.some((row) => row.oldest !== undefined && row.oldest < fromHour)) {
      await pruneKeyRange(db, id, rows[0]!.key, rows[rows.length - 1]!.key, fromHour);
    }
    if (rows.length < batchKeys) break;
    after = rows[rows.length - 1]!.key;
    const elapsed = performance.now() - started;
    if (elapsed > 2 * TARGET_BATCH_MS) batchKeys = Math.max(MIN_BATCH_KEYS, batchKeys >> 1);
    else if (elapsed < TARGET_BATCH_MS / 2) batchKeys = Math.min(MAX_BATCH_KEYS, batchKeys * 2);
    await yieldToEventLoop();
  }
  return best.sort(byRank).slice(0, MAX_TOP_SEARCHED);
}
