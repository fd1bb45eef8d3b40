// Which search a posted signal belongs to. A signal carrying `fusion_query_id` names it
// ('sent'). One without, naming a document, is given the same shopper's last search (by
// `user_id`, else `session`) in the same app and collection that showed that document within
// the 30 minutes before it ('inferred'); otherwise it stays unattributed.
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { type ShopperKey, selectSearchSignals, selectShopperSearches } from './repository.js';
import type { SignalTable } from './tables.js';

/** How far back a signal looks for the search that showed its document. */
export const ATTRIBUTION_WINDOW_MS = 30 * 60_000;
/**
 * How far after a signal its search may be: the shop's clock (the signal's timestamp) and
 * searchdeck's (the search's) differ a little.
 */
export const CLOCK_SKEW_MS = 60_000;
// A shopper's searches read at most, per batch of their signals: several pages an hour.
const MAX_SEARCHES = 500;

function shopperOf(row: SignalTable): ShopperKey | undefined {
  if (row.user_hash !== null) return { column: 'user_hash', hash: row.user_hash };
  if (row.session_hash !== null) return { column: 'session_hash', hash: row.session_hash };
  return undefined;
}

/** Whether a signal needs its search inferred: it names a document and a shopper, but no query id. */
export function needsInference(row: SignalTable): boolean {
  return row.query_id === null && row.doc_id !== null && shopperOf(row) !== undefined;
}

/**
 * Sets `query_id`, `attribution` (and the query and position when the signal lacks them) of
 * the rows that need inference, from the searches stored. One read per shopper of the batch.
 */
export async function inferSearches(
  db: Kysely<Database>,
  app: string,
  collection: string,
  rows: readonly SignalTable[],
): Promise<void> {
  const byShopper = new Map<string, { shopper: ShopperKey; rows: SignalTable[] }>();
  for (const row of rows) {
    if (!needsInference(row)) continue;
    const shopper = shopperOf(row)!;
    const key = `${shopper.column}:${shopper.hash}`;
    const group = byShopper.get(key) ?? { shopper, rows: [] };
    group.rows.push(row);
    byShopper.set(key, group);
  }
  for (const { shopper, rows: theirs } of byShopper.values()) {
    const from = Math.min(...theirs.map((row) => row.at)) - ATTRIBUTION_WINDOW_MS;
    const to = Math.max(...theirs.map((row) => row.at)) + CLOCK_SKEW_MS;
    const searches = (await selectShopperSearches(db, app, collection, shopper, from, to, MAX_SEARCHES)).map(
      (search) => ({ ...search, ids: JSON.parse(search.doc_ids) as string[] }),
    );
    for (const row of theirs) {
      // Newest first: the last search before the signal that showed its document.
      const search = searches.find(
        (s) =>
          s.at <= row.at + CLOCK_SKEW_MS &&
          s.at >= row.at - ATTRIBUTION_WINDOW_MS &&
          s.ids.includes(row.doc_id!),
      );
      if (!search) continue;
      row.query_id = search.id;
      row.attribution = 'inferred';
      if (row.query === null) {
        row.query = search.query;
        row.query_key = search.query_key;
      }
      row.position ??= search.ids.indexOf(row.doc_id!) + 1;
    }
  }
}

/**
 * Completes the signals that name their search (`fusion_query_id`): the query and the
 * document's position on that search's page, when the signal lacks them and the search is
 * stored in the same app. A query id that is not found is kept as sent.
 */
export async function completeSent(
  db: Kysely<Database>,
  app: string,
  rows: readonly SignalTable[],
): Promise<void> {
  const wanting = rows.filter(
    (row) =>
      row.attribution === 'sent' && (row.query === null || (row.position === null && row.doc_id !== null)),
  );
  const ids = [...new Set(wanting.map((row) => row.query_id!))];
  const searches = new Map<string, { query: string; query_key: string; ids: string[] }>();
  for (let i = 0; i < ids.length; i += 500) {
    for (const search of await selectSearchSignals(db, app, ids.slice(i, i + 500)))
      searches.set(search.id, { ...search, ids: JSON.parse(search.doc_ids) as string[] });
  }
  for (const row of wanting) {
    const search = searches.get(row.query_id!);
    if (!search) continue;
    if (row.query === null) {
      row.query = search.query;
      row.query_key = search.query_key;
    }
    const at = row.doc_id === null ? -1 : search.ids.indexOf(row.doc_id);
    if (row.position === null && at >= 0) row.position = at + 1;
  }
}
