// The SQL of the raw signals: the response signals the query path writes, the events shops
// post, a shopper's recent searches (to attribute a click) and the pruning past the retention.
import { type Kysely, sql } from 'kysely';
import { type Parameter, PreparedQueries } from '../storage/prepared-query.js';
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

// Posted signals go in by statements of a few fixed sizes, each built and compiled once and
// then only bound (a 500-row insert built anew cost more than running it): 1,000 signals are two
// statements, 7 are three (5 + 1 + 1). On PostgreSQL each size is a named statement, parsed once
// per connection.
const SIGNAL_CHUNKS = [500, 100, 20, 5, 1];
const signalInserts = new PreparedQueries<never>('signal_insert');
/** The columns a posted signal is stored in, in the order its inserts bind them. */
export const SIGNAL_COLUMNS = [
  'id',
  'app',
  'collection',
  'type',
  'at',
  'received_at',
  'doc_id',
  'query',
  'query_key',
  'query_id',
  'attribution',
  'position',
  'price',
  'quantity',
  'user_hash',
  'session_hash',
  'params',
] as const satisfies ReadonlyArray<keyof SignalTable>;

/**
 * Writes posted signals; an id already stored is not stored again. Several statements: call it
 * inside a transaction for them to be stored all or none.
 */
export async function insertSignals(db: Kysely<Database>, rows: readonly SignalTable[]): Promise<void> {
  let i = 0;
  for (const size of SIGNAL_CHUNKS) {
    for (; rows.length - i >= size; i += size) {
      const args: unknown[] = [];
      for (let r = i; r < i + size; r++) {
        const row = rows[r]!;
        for (const column of SIGNAL_COLUMNS) args.push(row[column]);
      }
      await signalInserts.execute(
        db,
        String(size),
        (builder, parameter) => insertOf(builder, parameter, size),
        args,
      );
    }
  }
}

/** The insert of `size` rows whose values are the parameters 0 … size × columns − 1, row after row. */
function insertOf(db: Kysely<Database>, parameter: Parameter, size: number) {
  const rows = Array.from(
    { length: size },
    (_, r) =>
      Object.fromEntries(
        SIGNAL_COLUMNS.map((column, c) => [column, parameter(r * SIGNAL_COLUMNS.length + c)]),
      ) as unknown as SignalTable,
  );
  return db
    .insertInto('signal')
    .values(rows)
    .onConflict((oc) => oc.column('id').doNothing());
}

/** Whose searches: by a shopper's id hash, or (without one) their session's. */
export type ShopperColumn = 'user_hash' | 'session_hash';

/** A response signal as attribution reads it, with the shopper's hash it was found by. */
export type ShopperSearch = Pick<SearchSignalTable, 'id' | 'at' | 'doc_ids' | 'query' | 'query_key'> & {
  shopper: string;
};

/**
 * The searches of several shoppers (their hashes in `column`) in a collection between two
 * moments (epoch ms): for each shopper the newest `limit` of them, newest first. One statement
 * for all of them: a window function ranks each shopper's searches.
 */
export async function selectShoppersSearches(
  db: Kysely<Database>,
  app: string,
  collection: string,
  column: ShopperColumn,
  hashes: readonly string[],
  from: number,
  to: number,
  limit: number,
): Promise<ShopperSearch[]> {
  if (hashes.length === 0) return [];
  const ranked = db
    .selectFrom('search_signal')
    .select([
      'id',
      'at',
      'doc_ids',
      'query',
      'query_key',
      sql<string>`${sql.ref(column)}`.as('shopper'),
      sql<number>`row_number() over (partition by ${sql.ref(column)} order by ${sql.ref('at')} desc)`.as(
        'rank',
      ),
    ])
    .where(column, 'in', [...hashes])
    .where('at', '>=', from)
    .where('at', '<=', to)
    .where('app', '=', app)
    .where('collection', '=', collection);
  return db
    .selectFrom(ranked.as('ranked'))
    .select(['id', 'at', 'doc_ids', 'query', 'query_key', 'shopper'])
    .where('rank', '<=', limit)
    .orderBy('at', 'desc')
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
