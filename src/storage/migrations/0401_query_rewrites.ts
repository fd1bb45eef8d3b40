import { type Kysely, sql } from 'kysely';
import type { Engine } from '../database.js';

/**
 * Query rewrites: the rewrite rows with both contents, their search words, and the
 * per-studio row publishes take turns on. Sorted and range-matched text compares by
 * bytes on both engines, as the rules' does.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const bytewise = engine === 'postgres' ? sql`text collate "C"` : sql`text`;
  await db.schema
    .createTable('query_rewrite')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('studio_id', 'text', (c) => c.notNull().references('studio.id').onDelete('cascade'))
    .addColumn('type', bytewise, (c) => c.notNull())
    .addColumn('staging', 'text', (c) => c.notNull())
    .addColumn('live', 'text')
    .addColumn('created_by', bytewise, (c) => c.notNull())
    .addColumn('creation_date', 'text', (c) => c.notNull())
    .addColumn('last_modified_by', bytewise, (c) => c.notNull())
    .addColumn('last_modified', 'text', (c) => c.notNull())
    .addColumn('publish_state', bytewise, (c) => c.notNull())
    .addColumn('published', 'integer', (c) => c.notNull())
    .addColumn('sort_start', bytewise, (c) => c.notNull())
    .addColumn('sort_end', bytewise, (c) => c.notNull())
    .addColumn('staging_start', 'text')
    .addColumn('staging_end', 'text')
    .addColumn('live_start', 'text')
    .addColumn('live_end', 'text')
    .execute();
  for (const column of ['last_modified', 'creation_date']) {
    await db.schema
      .createIndex(`query_rewrite_by_${column}`)
      .on('query_rewrite')
      .columns(['studio_id', column, 'id'])
      .execute();
  }
  await db.schema
    .createTable('query_rewrite_word')
    .addColumn('studio_id', 'text', (c) => c.notNull())
    .addColumn('word', bytewise, (c) => c.notNull())
    .addColumn('rewrite_id', 'text', (c) => c.notNull().references('query_rewrite.id').onDelete('cascade'))
    .execute();
  await db.schema
    .createIndex('query_rewrite_word_by_word')
    .on('query_rewrite_word')
    .columns(['studio_id', 'word', 'rewrite_id'])
    .execute();
  await db.schema
    .createIndex('query_rewrite_word_by_rewrite')
    .on('query_rewrite_word')
    .columns(['rewrite_id', 'word'])
    .execute();
  await db.schema
    .createTable('query_rewrite_publish')
    .addColumn('studio_id', 'text', (c) => c.primaryKey().references('studio.id').onDelete('cascade'))
    .addColumn('publishes', 'integer', (c) => c.notNull())
    .execute();
}
