import type { Kysely } from 'kysely';
import type { Engine } from '../database.js';

/** A search's own response signals in a range of time: the Analytics API's drill-down of one search. */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema
    .createIndex('search_signal_by_query_key')
    .on('search_signal')
    .columns(['app', 'profile_id', 'query_key', 'at'])
    .execute();
}
