import type { Kysely } from 'kysely';
import type { Engine } from '../database.js';

/**
 * An experiment's results read its variants' daily rollup rows across every profile of the
 * app; the primary key starts with the profile, so without this index the read passed over
 * every rollup row of the app.
 */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema
    .createIndex('analytics_day_by_app_item')
    .on('analytics_day')
    .columns(['app', 'kind', 'item'])
    .execute();
}
