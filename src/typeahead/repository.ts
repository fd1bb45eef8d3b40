import type { Kysely } from 'kysely';
import { chunks } from '../storage/chunks.js';
import type { Database } from '../storage/schema.js';
import type { TypeaheadInstanceTable } from './tables.js';

export type InstanceRow = TypeaheadInstanceTable;
export type TermListName = 'included' | 'excluded';
export interface TermRow {
  list: TermListName;
  key: string;
  term: string;
}
export interface TopTermRow {
  key: string;
  term: string;
  count: number;
}

// Rows per multi-row statement: far below both engines' parameter limits.
const ROWS_PER_STATEMENT = 500;

export async function insertInstance(db: Kysely<Database>, row: InstanceRow): Promise<void> {
  await db.insertInto('typeahead_instance').values(row).execute();
}

export async function selectInstance(db: Kysely<Database>, id: string): Promise<InstanceRow | undefined> {
  return db.selectFrom('typeahead_instance').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function selectInstances(db: Kysely<Database>): Promise<InstanceRow[]> {
  return db.selectFrom('typeahead_instance').selectAll().orderBy('id').execute();
}

export async function selectVersions(db: Kysely<Database>): Promise<Array<{ id: string; version: number }>> {
  return db.selectFrom('typeahead_instance').select(['id', 'version']).execute();
}

/**
 * Marks a change of what an instance serves: bumps its version, which also locks its row
 * until the transaction ends, serialising concurrent changes. False when there is no such instance.
 */
export async function bumpVersion(
  db: Kysely<Database>,
  id: string,
  changes: Partial<InstanceRow>,
): Promise<boolean> {
  const result = await db
    .updateTable('typeahead_instance')
    .set((eb) => ({ ...changes, version: eb('version', '+', 1) }))
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteInstance(db: Kysely<Database>, id: string): Promise<boolean> {
  const result = await db.deleteFrom('typeahead_instance').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function selectTerms(db: Kysely<Database>, id: string): Promise<TermRow[]> {
  const rows = await db
    .selectFrom('typeahead_term')
    .select(['list', 'key', 'term'])
    .where('instance_id', '=', id)
    .orderBy('key')
    .execute();
  return rows as TermRow[];
}

export async function deleteAllTerms(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom('typeahead_term').where('instance_id', '=', id).execute();
}

export async function deleteTermsByKey(
  db: Kysely<Database>,
  id: string,
  list: TermListName,
  keys: readonly string[],
): Promise<void> {
  for (const part of chunks([...keys].sort(), ROWS_PER_STATEMENT)) {
    await db
      .deleteFrom('typeahead_term')
      .where('instance_id', '=', id)
      .where('list', '=', list)
      .where('key', 'in', part)
      .execute();
  }
}

/** Adds terms; a key already in its list keeps its stored form. Written in key order, as every writer does. */
export async function insertTerms(db: Kysely<Database>, id: string, rows: readonly TermRow[]): Promise<void> {
  const sorted = [...rows].sort((a, b) =>
    a.list < b.list ? -1 : a.list > b.list ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0,
  );
  for (const part of chunks(sorted, ROWS_PER_STATEMENT)) {
    await db
      .insertInto('typeahead_term')
      .values(part.map((row) => ({ instance_id: id, ...row })))
      .onConflict((oc) => oc.columns(['instance_id', 'list', 'key']).doNothing())
      .execute();
  }
}

export async function countTerms(db: Kysely<Database>, id: string): Promise<number> {
  const row = await db
    .selectFrom('typeahead_term')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('instance_id', '=', id)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The top-searched set in rank order: most searched first, ties by key. */
export async function selectTopTerms(db: Kysely<Database>, id: string): Promise<TopTermRow[]> {
  return db
    .selectFrom('typeahead_top_term')
    .select(['key', 'term', 'count'])
    .where('instance_id', '=', id)
    .orderBy('count', 'desc')
    .orderBy('key')
    .execute();
}

export async function replaceTopTerms(
  db: Kysely<Database>,
  id: string,
  rows: readonly TopTermRow[],
): Promise<void> {
  await db.deleteFrom('typeahead_top_term').where('instance_id', '=', id).execute();
  for (const part of chunks(rows, ROWS_PER_STATEMENT)) {
    await db
      .insertInto('typeahead_top_term')
      .values(part.map((row) => ({ instance_id: id, ...row })))
      .execute();
  }
}

export interface KeyTotal {
  key: string;
  total: number;
  /** The oldest bucket of the key (batched reads only). */
  oldest?: string;
}

/**
 * The next `limit` keys after `afterKey`, in key order, with their searches since `fromHour`.
 * Every key counts against the limit (no HAVING), so one call reads a bounded number of rows.
 */
export async function selectKeyTotals(
  db: Kysely<Database>,
  id: string,
  afterKey: string | undefined,
  fromHour: string,
  limit: number,
): Promise<KeyTotal[]> {
  let query = db
    .selectFrom('typeahead_search_count')
    .select((eb) => [
      'key',
      eb.fn
        .sum<number>(eb.case().when('hour', '>=', fromHour).then(eb.ref('count')).else(0).end())
        .as('total'),
      eb.fn.min('hour').as('oldest'),
    ])
    .where('instance_id', '=', id);
  if (afterKey !== undefined) query = query.where('key', '>', afterKey);
  const rows = await query.groupBy('key').orderBy('key').limit(limit).execute();
  return rows.map((row) => ({ key: row.key, total: Number(row.total), oldest: row.oldest }));
}

/** Deletes the buckets and forms older than `fromHour` of the keys from `firstKey` to `lastKey`. */
export async function pruneKeyRange(
  db: Kysely<Database>,
  id: string,
  firstKey: string,
  lastKey: string,
  fromHour: string,
): Promise<void> {
  await db
    .deleteFrom('typeahead_search_count')
    .where('instance_id', '=', id)
    .where('key', '>=', firstKey)
    .where('key', '<=', lastKey)
    .where('hour', '<', fromHour)
    .execute();
  await db
    .deleteFrom('typeahead_search_form')
    .where('instance_id', '=', id)
    .where('key', '>=', firstKey)
    .where('key', '<=', lastKey)
    .where('last_hour', '<', fromHour)
    .execute();
}

/** The most entered form of each key (ties: the smaller string). */
export async function selectDisplayForms(
  db: Kysely<Database>,
  id: string,
  keys: readonly string[],
): Promise<Map<string, string>> {
  const best = new Map<string, { form: string; count: number }>();
  for (const part of chunks(keys, ROWS_PER_STATEMENT)) {
    const rows = await db
      .selectFrom('typeahead_search_form')
      .select(['key', 'form', 'count'])
      .where('instance_id', '=', id)
      .where('key', 'in', part)
      .execute();
    for (const row of rows) {
      const current = best.get(row.key);
      if (
        current === undefined ||
        row.count > current.count ||
        (row.count === current.count && row.form < current.form)
      ) {
        best.set(row.key, { form: row.form, count: Number(row.count) });
      }
    }
  }
  return new Map([...best].map(([key, { form }]) => [key, form]));
}

/**
 * One page of the keys with at least `minCount` searches since `fromHour`, most searched
 * first, aggregated by the database (for engines with an asynchronous driver).
 */
export async function selectRankedKeys(
  db: Kysely<Database>,
  id: string,
  fromHour: string,
  minCount: number,
  offset: number,
  limit: number,
): Promise<KeyTotal[]> {
  const rows = await db
    .selectFrom('typeahead_search_count')
    .select((eb) => ['key', eb.fn.sum<number>('count').as('total')])
    .where('instance_id', '=', id)
    .where('hour', '>=', fromHour)
    .groupBy('key')
    .having((eb) => eb.fn.sum('count'), '>=', minCount)
    .orderBy('total', 'desc')
    .orderBy('key')
    .offset(offset)
    .limit(limit)
    .execute();
  return rows.map((row) => ({ key: row.key, total: Number(row.total) }));
}

/** Deletes all buckets and forms of an instance older than `fromHour`, in one statement each. */
export async function pruneAll(db: Kysely<Database>, id: string, fromHour: string): Promise<void> {
  await db
    .deleteFrom('typeahead_search_count')
    .where('instance_id', '=', id)
    .where('hour', '<', fromHour)
    .execute();
  await db
    .deleteFrom('typeahead_search_form')
    .where('instance_id', '=', id)
    .where('last_hour', '<', fromHour)
    .execute();
}

/** Logged searches of an instance per hour from `fromHour` on, summed over keys, oldest first. */
export async function selectHourlyTotals(
  db: Kysely<Database>,
  id: string,
  fromHour: string,
): Promise<{ hour: string; count: number }[]> {
  const rows = await db
    .selectFrom('typeahead_search_count')
    .select((eb) => ['hour', eb.fn.sum<number>('count').as('count')])
    .where('instance_id', '=', id)
    .where('hour', '>=', fromHour)
    .groupBy('hour')
    .orderBy('hour')
    .execute();
  // pg answers a sum as a string.
  return rows.map((row) => ({ hour: row.hour, count: Number(row.count) }));
}
