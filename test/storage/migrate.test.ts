import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { isMigrated } from '../../src/storage/migrate.js';
import { freshStore, skipReason } from '../helpers/app.js';
import { testDatabaseUrl } from '../helpers/postgres.js';

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

describe('migrations beside other schemas that change', { skip: await skipReason('postgres') }, () => {
  test('a migration succeeds while other schemas are created, altered and dropped', async (t) => {
    const churn = new pg.Client({ connectionString: testDatabaseUrl });
    await churn.connect();
    let stop = false;
    let rounds = 0;
    const churning = (async () => {
      while (!stop) {
        const schema = `churn_${randomBytes(5).toString('hex')}`;
        await churn.query(`create schema ${schema}`);
        const columns = Array.from({ length: 40 }, (_, i) => `c${i} serial`).join(', ');
        await churn.query(`create table ${schema}.rule (${columns})`);
        for (let i = 0; i < 40; i += 4) await churn.query(`alter table ${schema}.rule drop column c${i}`);
        await churn.query(`drop schema ${schema} cascade`);
        rounds++;
      }
    })();
    t.after(async () => {
      stop = true;
      await churning;
      await churn.end();
    });

    for (let i = 0; i < 6; i++) {
      const store = await freshStore('postgres');
      assert.equal(await isMigrated(store.store), true);
      await store.close();
    }
    assert.ok(rounds > 0, 'the other schemas changed while the migrations ran');
  });
});
