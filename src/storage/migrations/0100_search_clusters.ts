import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('search_cluster')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('connect_string', 'text', (c) => c.notNull())
    .addColumn('cloud', 'integer', (c) => c.notNull())
    .addColumn('zk_client_timeout', 'integer', (c) => c.notNull())
    .addColumn('zk_connect_timeout', 'integer', (c) => c.notNull())
    .addColumn('buffer_flush_interval', 'integer', (c) => c.notNull())
    .addColumn('buffer_size', 'integer', (c) => c.notNull())
    .addColumn('concurrency', 'integer', (c) => c.notNull())
    .addColumn('validate_cluster', 'integer', (c) => c.notNull())
    .addColumn('auth_type', 'text', (c) => c.notNull())
    .addColumn('auth_username', 'text')
    .addColumn('auth_password', 'text')
    .addColumn('auth_principal', 'text')
    .addColumn('auth_key_tab', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}
