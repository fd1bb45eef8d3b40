import { type Kysely, sql } from 'kysely';
import type { Engine } from '../database.js';

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  // Keys are compared in code point order on both engines, so that key ranges of the
  // batched job mean the same thing everywhere; SQLite's BINARY collation already is.
  const keyType = engine === 'postgres' ? sql`text collate "C"` : sql`text`;
  // SQLite stores these tables clustered by their primary key, which the job scans in order.
  const clustered = engine === 'sqlite' ? sql`without rowid` : sql``;

  await db.schema
    .createTable('typeahead_instance')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('allowed_origins', 'text', (c) => c.notNull())
    .addColumn('top_terms_window_days', 'integer', (c) => c.notNull())
    .addColumn('min_count', 'integer', (c) => c.notNull())
    .addColumn('cache_max_age_seconds', 'integer', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('previous_token_hash', 'text')
    .addColumn('previous_token_expires_at', 'text')
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('typeahead_term')
    .addColumn('instance_id', 'text', (c) =>
      c.notNull().references('typeahead_instance.id').onDelete('cascade'),
    )
    .addColumn('list', 'text', (c) => c.notNull())
    .addColumn('key', keyType, (c) => c.notNull())
    .addColumn('term', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('typeahead_term_pk', ['instance_id', 'list', 'key'])
    .modifyEnd(clustered)
    .execute();

  await db.schema
    .createTable('typeahead_top_term')
    .addColumn('instance_id', 'text', (c) =>
      c.notNull().references('typeahead_instance.id').onDelete('cascade'),
    )
    .addColumn('key', keyType, (c) => c.notNull())
    .addColumn('term', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('typeahead_top_term_pk', ['instance_id', 'key'])
    .modifyEnd(clustered)
    .execute();

  await db.schema
    .createTable('typeahead_search_count')
    .addColumn('instance_id', 'text', (c) =>
      c.notNull().references('typeahead_instance.id').onDelete('cascade'),
    )
    .addColumn('key', keyType, (c) => c.notNull())
    .addColumn('hour', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('typeahead_search_count_pk', ['instance_id', 'key', 'hour'])
    .modifyEnd(clustered)
    .execute();

  await db.schema
    .createTable('typeahead_search_form')
    .addColumn('instance_id', 'text', (c) =>
      c.notNull().references('typeahead_instance.id').onDelete('cascade'),
    )
    .addColumn('key', keyType, (c) => c.notNull())
    .addColumn('form', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('last_hour', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('typeahead_search_form_pk', ['instance_id', 'key', 'form'])
    .modifyEnd(clustered)
    .execute();
}
