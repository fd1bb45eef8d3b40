import { type CreateTableBuilder, type Kysely, sql } from 'kysely';
import type { Engine } from '../database.js';

const COUNTS = [
  'searches',
  'no_result_searches',
  'click_searches',
  'conversion_searches',
  'cart_searches',
  'clicks',
  'conversions',
  'carts',
  'position_sum',
  'position_count',
  'last_at',
  'last_hits',
] as const;

// Kysely types a table's columns as they are added; these tables are typed in src/analytics/tables.ts.
function withCounts(table: CreateTableBuilder<string, string>): CreateTableBuilder<string, string> {
  let built = table;
  for (const column of COUNTS) built = built.addColumn(column, 'bigint', (c) => c.notNull().defaultTo(0));
  return built;
}

/**
 * Hourly and daily rollups of the raw signals, per profile and item. The answers read a
 * range of one profile's rows of one kind, so the primary key is that access path; on SQLite
 * the rows are stored in its order (WITHOUT ROWID), so a range is read from one place.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const clustered = engine === 'sqlite' ? sql`without rowid` : sql``;
  for (const [table, time] of [
    ['analytics_hour', 'hour'],
    ['analytics_day', 'day'],
  ] as const) {
    await withCounts(
      db.schema
        .createTable(table)
        .addColumn('app', 'text', (c) => c.notNull())
        .addColumn('profile_id', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn(time, 'bigint', (c) => c.notNull())
        .addColumn('item', 'text', (c) => c.notNull()),
    )
      .addPrimaryKeyConstraint(`${table}_pk`, ['app', 'profile_id', 'kind', time, 'item'])
      .modifyEnd(clustered)
      .execute();
    // The pruning past the rollups' retention reads by time alone.
    await db.schema.createIndex(`${table}_by_time`).on(table).column(time).execute();
  }
  await db.schema
    .createTable('analytics_dirty_hour')
    .addColumn('app', 'text', (c) => c.notNull())
    .addColumn('profile_id', 'text', (c) => c.notNull())
    .addColumn('hour', 'bigint', (c) => c.notNull())
    .addColumn('marked_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('analytics_dirty_hour_pk', ['app', 'profile_id', 'hour'])
    .execute();
  await db.schema
    .createTable('analytics_rollup_state')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'bigint', (c) => c.notNull())
    .execute();
}
