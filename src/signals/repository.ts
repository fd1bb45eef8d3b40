// The SQL of the raw signals: the response signals the query path writes, the events shops
// post, a shopper's recent searches (to attribute a click) and the pruning past the retention.
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { SearchSignalTable, SignalTable } from './tables.js';

// 17 columns a row: 500 rows stay far below SQLite's 32,766 bound variables and PostgreSQL's 65,535.
const INSERT_CHUNK = 500;

/** Writes response signals; an id already stored is left as it is. */
export async function insertSearchSignals(
  db: Kysely<Database>,
  rows: readonly SearchSignalTable[],
): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await db
      .insertInto('search_signal')
      .values(rows.slice(i, i + INSERT_CHUNK))
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }
}

/** Writes posted signals; an id already stored is not stored again. */
export async function insertSignals(db: Kysely<Database>, rows: readonly SignalTable[]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await db
      .insertInto('signal')
      .values(rows.slice(i, i + INSERT_CHUNK))
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }
}

/** Whose searches: a shopper's id hash, or (without one) their session's. */
export type ShopperKey = { column: 'user_hash' | 'session_hash'; hash: string };

/** The searches of one shopper in a collection between two moments (epoch ms), newest first. */
export async function selectShopperSearches(
  db: Kysely<Database>,
  app: string,
  collection: string,
  shopper: ShopperKey,
  from: number,
  to: number,
  limit: number,
): Promise<Array<Pick<SearchSignalTable, 'id' | 'at' | 'doc_ids' | 'query' | 'query_key'>>> {
  return db
    .selectFrom('search_signal')
    .select(['id', 'at', 'doc_ids', 'query', 'query_key'])
    .where(shopper.column, '=', shopper.hash)
    .where('at', '>=', from)
    .where('at', '<=', to)
    .where('app', '=', app)
    .where('collection', '=', collection)
    .orderBy('at', 'desc')
    .limit(limit)
    .execute();
}

/**
 * Deletes up to `limit` rows of a raw table older than `before` (epoch ms); the number deleted.
 * By the ids of a bounded select, so that one statement never holds the table for long.
 */
export async function deleteOlderThan(
  db: Kysely<Database>,
  table: 'search_signal' | 'signal',
  before: number,
  limit: number,
): Promise<number> {
  const ids = (await db.selectFrom(table).select('id').where('at', '<', before).limit(limit).execute()).map(
    (row) => row.id,
  );
  if (ids.length === 0) return 0;
  await db.deleteFrom(table).where('id', 'in', ids).execute();
  return ids.length;
}

/** The response signals of an app with the given ids (the searches that sent signals name). */
export async function selectSearchSignals(
  db: Kysely<Database>,
  app: string,
  ids: readonly string[],
): Promise<Array<Pick<SearchSignalTable, 'id' | 'doc_ids' | 'query' | 'query_key'>>> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('search_signal')
    .select(['id', 'doc_ids', 'query', 'query_key'])
    .where('app', '=', app)
    .where('id', 'in', [...ids])
    .execute();
}
