import type { Kysely } from 'kysely';
import type { Engine } from '../database.js';

/** Raw signals: the query path's response signals and the events shops post. */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema
    .createTable('search_signal')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app', 'text', (c) => c.notNull())
    .addColumn('profile_id', 'text', (c) => c.notNull())
    .addColumn('collection', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('query', 'text', (c) => c.notNull())
    .addColumn('query_key', 'text', (c) => c.notNull())
    .addColumn('rewritten', 'text', (c) => c.notNull())
    .addColumn('hits', 'bigint', (c) => c.notNull())
    .addColumn('doc_ids', 'text', (c) => c.notNull())
    .addColumn('rule_ids', 'text', (c) => c.notNull())
    .addColumn('segment', 'text')
    .addColumn('user_hash', 'text')
    .addColumn('session_hash', 'text')
    .addColumn('counted', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('search_signal_by_profile_time')
    .on('search_signal')
    .columns(['app', 'profile_id', 'at'])
    .execute();
  await db.schema.createIndex('search_signal_by_time').on('search_signal').column('at').execute();
  await db.schema
    .createIndex('search_signal_by_user')
    .on('search_signal')
    .columns(['user_hash', 'at'])
    .execute();
  await db.schema
    .createIndex('search_signal_by_session')
    .on('search_signal')
    .columns(['session_hash', 'at'])
    .execute();

  await db.schema
    .createTable('signal')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app', 'text', (c) => c.notNull())
    .addColumn('collection', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .addColumn('doc_id', 'text')
    .addColumn('query', 'text')
    .addColumn('query_key', 'text')
    .addColumn('query_id', 'text')
    .addColumn('attribution', 'text')
    .addColumn('position', 'integer')
    .addColumn('price', 'double precision')
    .addColumn('quantity', 'integer')
    .addColumn('user_hash', 'text')
    .addColumn('session_hash', 'text')
    .addColumn('params', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('signal_by_query').on('signal').column('query_id').execute();
  await db.schema.createIndex('signal_by_time').on('signal').columns(['app', 'at']).execute();
  await db.schema.createIndex('signal_by_received').on('signal').column('received_at').execute();
  await db.schema.createIndex('signal_by_user').on('signal').column('user_hash').execute();
  await db.schema.createIndex('signal_by_session').on('signal').column('session_hash').execute();
}
