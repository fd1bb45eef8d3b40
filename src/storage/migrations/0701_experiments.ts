import type { Kysely } from 'kysely';
import type { Engine } from '../database.js';

/** Experiments (app-scoped, their settings as JSON, as query profiles keep theirs). */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema
    .createTable('experiment')
    .addColumn('app', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('settings', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('experiment_pk', ['app', 'id'])
    .execute();
}
