import type { Kysely } from 'kysely';
import type { Engine } from '../database.js';

/** Query profiles (app-scoped, their settings as JSON) and their search-only keys (hashed). */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema
    .createTable('query_profile')
    .addColumn('app', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('search_cluster', 'text', (c) => c.notNull())
    .addColumn('settings', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('query_profile_pk', ['app', 'id'])
    .execute();
  await db.schema
    .createTable('query_key')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app', 'text', (c) => c.notNull())
    .addColumn('profile_id', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addForeignKeyConstraint(
      'query_key_profile',
      ['app', 'profile_id'],
      'query_profile',
      ['app', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  await db.schema
    .createIndex('query_key_by_profile')
    .on('query_key')
    .columns(['app', 'profile_id'])
    .execute();
}
