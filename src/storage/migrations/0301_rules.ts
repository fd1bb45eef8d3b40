import { type Kysely, sql } from 'kysely';
import type { Engine } from '../database.js';

/**
 * Studios, their API clients, rules and the rules listing's side tables. Text
 * that is sorted or range-matched (names, words) compares by bytes on both
 * engines: SQLite does by default, PostgreSQL with the "C" collation.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const bytewise = engine === 'postgres' ? sql`text collate "C"` : sql`text`;
  await db.schema
    .createTable('studio')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('sync_targets', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('studio_client')
    .addColumn('client_id', 'text', (c) => c.primaryKey())
    .addColumn('studio_id', 'text', (c) => c.notNull().references('studio.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('studio_client_name', ['studio_id', 'name'])
    .execute();

  await db.schema
    .createTable('rule')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('studio_id', 'text', (c) => c.notNull().references('studio.id').onDelete('cascade'))
    .addColumn('external_id', 'text')
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('migrated_id', 'text')
    .addColumn('staging', 'text', (c) => c.notNull())
    .addColumn('live', 'text')
    .addColumn('created_by', bytewise, (c) => c.notNull())
    .addColumn('creation_date', 'text', (c) => c.notNull())
    .addColumn('last_modified_by', bytewise, (c) => c.notNull())
    .addColumn('last_modified', 'text', (c) => c.notNull())
    .addColumn('name_key', bytewise, (c) => c.notNull())
    .addColumn('type', bytewise, (c) => c.notNull())
    .addColumn('precedence', 'integer', (c) => c.notNull())
    .addColumn('sort_start', bytewise, (c) => c.notNull())
    .addColumn('sort_end', bytewise, (c) => c.notNull())
    .addColumn('publish_state', bytewise, (c) => c.notNull())
    .addColumn('published', 'integer', (c) => c.notNull())
    .addColumn('staging_start', 'text')
    .addColumn('staging_end', 'text')
    .addColumn('live_start', 'text')
    .addColumn('live_end', 'text')
    .addColumn('staging_version', 'integer', (c) => c.notNull())
    .addColumn('staging_synced_version', 'integer')
    .addColumn('staging_synced_at', 'text')
    .addColumn('staging_failed_version', 'integer')
    .addColumn('live_version', 'integer', (c) => c.notNull())
    .addColumn('live_synced_version', 'integer')
    .addColumn('live_synced_at', 'text')
    .addColumn('live_failed_version', 'integer')
    .addColumn('bulk_operation_id', 'text')
    .execute();
  await db.schema
    .createIndex('rule_external_id')
    .unique()
    .on('rule')
    .columns(['studio_id', 'external_id'])
    .execute();
  // One index per common sort, each ending in id: the listing's order with its tie-break.
  for (const column of ['last_modified', 'creation_date', 'name_key', 'precedence', 'publish_state']) {
    await db.schema
      .createIndex(`rule_by_${column}`)
      .on('rule')
      .columns(['studio_id', column, 'id'])
      .execute();
  }

  await db.schema
    .createTable('rule_facet')
    .addColumn('rule_id', 'text', (c) => c.notNull().references('rule.id').onDelete('cascade'))
    .addColumn('studio_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('field', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('rule_facet_by_value')
    .on('rule_facet')
    .columns(['studio_id', 'kind', 'value', 'field', 'rule_id'])
    .execute();
  await db.schema.createIndex('rule_facet_by_rule').on('rule_facet').column('rule_id').execute();

  await db.schema
    .createTable('rule_word')
    .addColumn('studio_id', 'text', (c) => c.notNull())
    .addColumn('word', bytewise, (c) => c.notNull())
    .addColumn('rule_id', 'text', (c) => c.notNull().references('rule.id').onDelete('cascade'))
    .addColumn('field', 'text', (c) => c.notNull())
    .addColumn('tf', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('rule_word_by_word')
    .on('rule_word')
    .columns(['studio_id', 'word', 'rule_id', 'field', 'tf'])
    .execute();
  await db.schema.createIndex('rule_word_by_rule').on('rule_word').column('rule_id').execute();

  await db.schema
    .createTable('rule_bulk_operation')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('studio_id', 'text', (c) => c.notNull().references('studio.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('request', 'text', (c) => c.notNull())
    .addColumn('counts', 'text', (c) => c.notNull())
    .addColumn('errors', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
}
