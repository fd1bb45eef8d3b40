import { type Kysely, sql } from 'kysely';
import type { Engine } from '../database.js';

/**
 * The change token of each profile's day of rollups, written with every change of its daily
 * rows: the analytics answers keep sums of days in memory and check these tokens on every
 * request (docs/analytics.md, "How the answers stay fast"). The days already rolled up get one.
 *
 * The experiments' index on (app, kind, item) led SQLite to read a profile's range of searches
 * through it, in item order, one row lookup each (3 s for 600,000 rows, against 0.8 s along
 * the primary key); on (item, app) it still serves the experiments, whose variant items are
 * no other kind's, and SQLite reads the range along the primary key.
 */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema
    .createTable('analytics_day_version')
    .addColumn('app', 'text', (c) => c.notNull())
    .addColumn('profile_id', 'text', (c) => c.notNull())
    .addColumn('day', 'bigint', (c) => c.notNull())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('analytics_day_version_pk', ['app', 'profile_id', 'day'])
    .execute();
  await sql`insert into analytics_day_version (app, profile_id, day, version)
    select distinct app, profile_id, day, 1 from analytics_day`.execute(db);
  await db.schema.dropIndex('analytics_day_by_app_item').execute();
  await db.schema
    .createIndex('analytics_day_by_app_item')
    .on('analytics_day')
    .columns(['item', 'app'])
    .execute();
}
