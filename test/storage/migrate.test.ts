import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { isMigrated } from '../../src/storage/migrate.js';
import { freshStore, skipReason } from '../helpers/app.js';

describe('migrations on PostgreSQL', { skip: await skipReason('postgres') }, () => {
  test('migrate a fresh schema while another schema already holds the migration tables', async (t) => {
    const first = await freshStore('postgres');
    t.after(() => first.close());
    const second = await freshStore('postgres');
    t.after(() => second.close());

    assert.equal(await isMigrated(second.store), true);
    const { rows } = await sql<{ schema: string }>`
      select table_schema as schema from information_schema.tables
      where table_name = 'kysely_migration_lock' and table_schema = current_schema()`.execute(
      second.store.db,
    );
    assert.equal(rows.length, 1, "the lock table lives in the store's own schema");
  });
});
