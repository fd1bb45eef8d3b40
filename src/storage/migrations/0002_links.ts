import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('link')
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('link_type', 'text', (c) => c.notNull())
    .addColumn('object', 'text', (c) => c.notNull())
    .addColumn('originator', 'text', (c) => c.notNull())
    .addColumn('given_reversed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('link_pk', ['subject', 'link_type', 'object'])
    .execute();
  await db.schema
    .createIndex('link_by_object')
    .on('link')
    .columns(['object', 'link_type', 'subject'])
    .execute();
}
