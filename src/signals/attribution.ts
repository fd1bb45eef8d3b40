// Which search a posted signal belongs to. A signal carrying `fusion_query_id` names it
// ('sent'). One without, naming a document, is given the same shopper's last search (by
// `user_id`, else `session`) in the same app and collection that showed that document within
// the 30 minutes before it ('inferred'); otherwise it stays unattributed.
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import {
  type ShopperColumn,
  type ShopperSearch,
  selectSearchSignals,
  selectShoppersSearches,
} from './repository.js';
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
// Shoppers whose searches one statement reads: far below either engine's bound on parameters.
const SHOPPERS_PER_READ = 1000;

function shopperOf(row: SignalTable): { column: ShopperColumn; hash: string } | undefined {
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
 * the rows that need inference, from the searches stored. One read per kind of shopper key
 * (ids, sessions) and 1,000 shoppers, whatever the number of signals: the searches of every
 * shopper of the rows between the earliest signal's window and the latest's, at most
 * `MAX_SEARCHES` newest per shopper.
 */
export async function inferSearches(
  db: Kysely<Database>,
  app: string,
  collection: string,
  rows: readonly SignalTable[],
): Promise<void> {
  const wanting = {
    user_hash: new Map<string, SignalTable[]>(),
    session_hash: new Map<string, SignalTable[]>(),
  };
  let earliest = Number.POSITIVE_INFINITY;
  let latest = Number.NEGATIVE_INFINITY;
  for (const row of rows) {
    if (!needsInference(row)) continue;
    const { column, hash } = shopperOf(row)!;
    const theirs = wanting[column].get(hash);
    if (theirs) theirs.push(row);
    else wanting[column].set(hash, [row]);
    earliest = Math.min(earliest, row.at);
    latest = Math.max(latest, row.at);
  }
  const from = earliest - ATTRIBUTION_WINDOW_MS;
  const to = latest + CLOCK_SKEW_MS;
  for (const column of ['user_hash', 'session_hash'] as const) {
    const byShopper = wanting[column];
    const hashes = [...byShopper.keys()];
    for (let i = 0; i < hashes.length; i += SHOPPERS_PER_READ) {
      const searches = await selectShoppersSearches(
        db,
        app,
        collection,
        column,
        hashes.slice(i, i + SHOPPERS_PER_READ),
        from,
        to,
        MAX_SEARCHES,
      );
      // Newest first, per shopper.
      const found = new Map<string, Array<{ search: ShopperSearch; ids: string[] }>>();
      for (const search of searches) {
        const entry = { search, ids: JSON.parse(search.doc_ids) as string[] };
        const theirs = found.get(search.shopper);
        if (theirs) theirs.push(entry);
        else found.set(search.shopper, [entry]);
      }
      for (const [hash, theirs] of found) attribute(byShopper.get(hash) ?? [], theirs);
    }
  }
}

/** Gives each signal the last of the shopper's searches (newest first) before it that showed its document. */
function attribute(
  rows: readonly SignalTable[],
  searches: ReadonlyArray<{ search: ShopperSearch; ids: string[] }>,
) {
  for (const row of rows) {
    const match = searches.find(
      ({ search, ids }) =>
        search.at <= row.at + CLOCK_SKEW_MS &&
        search.at >= row.at - ATTRIBUTION_WINDOW_MS &&
        ids.includes(row.doc_id!),
    );
    if (!match) continue;
    const { search, ids } = match;
    row.query_id = search.id;
    row.attribution = 'inferred';
    if (row.query === null) {
      row.query = search.query;
      row.query_key = search.query_key;
    }
    row.position ??= ids.indexOf(row.doc_id!) + 1;
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
