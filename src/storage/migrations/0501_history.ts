import type { Kysely } from 'kysely';
import type { Engine } from '../database.js';

/**
 * The history of changes: one row per event, written in the transaction of the change it
 * records. Listed newest first, filtered by object or actor, and pruned by age, so each of
 * those has an index that ends in the time.
 */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema
    .createTable('history_event')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('object', 'text', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('before', 'text')
    .addColumn('after', 'text')
    .addColumn('data', 'text')
    .execute();
  await db.schema.createIndex('history_event_by_at').on('history_event').columns(['at', 'id']).execute();
  for (const column of ['object', 'actor']) {
    await db.schema
      .createIndex(`history_event_by_${column}`)
      .on('history_event')
      .columns([column, 'at', 'id'])
      .execute();
  }
}
