import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { type Kysely, sql } from 'kysely';
import type { Engine } from '../../src/storage/database.js';
import type { Database } from '../../src/storage/schema.js';
import { inTransaction, TRANSACTION_ATTEMPTS } from '../../src/storage/transaction.js';
import { engines, freshStore, skipReason } from '../helpers/app.js';

function setValue(db: Kysely<Database>, name: string, value: string) {
  return db.updateTable('setting').set({ value }).where('name', '=', name).execute();
}

async function settingValue(db: Kysely<Database>, name: string) {
  return (await db.selectFrom('setting').select('value').where('name', '=', name).executeTakeFirstOrThrow())
    .value;
}

/** A failure the engine reports when it aborts a transaction for another's sake, raised for real. */
async function abortForAnother(engine: Engine, db: Kysely<Database>): Promise<never> {
  if (engine === 'postgres') {
    await sql`do $$ begin raise exception 'could not serialize access' using errcode = '40001'; end $$`.execute(
      db,
    );
  }
  // SQLite cannot be asked to raise SQLITE_BUSY; this is the driver's own error class and code.
  throw new SqliteDatabase.SqliteError('database is locked', 'SQLITE_BUSY');
}

for (const engine of engines) {
  describe(`transactions on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('runs again a transaction the engine aborted for a concurrent one, and both land', async (t) => {
      const fresh = await freshStore(engine);
      t.after(() => fresh.close());
      const one = fresh.store.db;
      const other = engine === 'postgres' ? one : fresh.openAnother().db;
      await one
        .insertInto('setting')
        .values([
          { name: 'a', value: '0' },
          { name: 'b', value: '0' },
        ])
        .execute();
      let attempts = 0;
      let firstStepsDone = 0;
      let bothStarted: () => void = () => {};
      const started = new Promise<void>((resolve) => {
        bothStarted = resolve;
      });
      let otherWrote: () => void = () => {};
      const written = new Promise<void>((resolve) => {
        otherWrote = resolve;
      });
      const step = async () => {
        if (++firstStepsDone === 2) bothStarted();
        await started;
      };

      if (engine === 'postgres') {
        // Each locks one row, then wants the other's: a deadlock, which PostgreSQL breaks by
        // aborting one of them.
        const crossing = (first: string, second: string, value: string) =>
          inTransaction(one, async (trx) => {
            attempts++;
            await setValue(trx, first, value);
            await step();
            await setValue(trx, second, value);
          });
        await Promise.all([crossing('a', 'b', 'x'), crossing('b', 'a', 'y')]);
        assert.equal(attempts, 3);
        assert.equal(await settingValue(one, 'a'), await settingValue(one, 'b'));
      } else {
        // A transaction reads, another connection commits a write, then the first writes: its
        // snapshot is stale, and SQLite refuses its write at once (SQLITE_BUSY_SNAPSHOT).
        const reader = inTransaction(one, async (trx) => {
          attempts++;
          await settingValue(trx, 'a');
          await step();
          // Writes only once the other connection has committed, not after a guessed 20 ms.
          await written;
          await setValue(trx, 'b', 'x');
        });
        await step();
        await setValue(other, 'a', 'y');
        otherWrote();
        await reader;
        assert.equal(attempts, 2);
        assert.deepEqual([await settingValue(one, 'a'), await settingValue(one, 'b')], ['y', 'x']);
      }
    });

    test('gives up after a bounded number of attempts, answering the engine’s error', async (t) => {
      const fresh = await freshStore(engine);
      t.after(() => fresh.close());
      let attempts = 0;
      await assert.rejects(
        inTransaction(fresh.store.db, async (trx) => {
          attempts++;
          await abortForAnother(engine, trx);
        }),
        (error: { code?: string }) => error.code === (engine === 'postgres' ? '40001' : 'SQLITE_BUSY'),
      );
      assert.equal(attempts, TRANSACTION_ATTEMPTS);
    });

    test('never runs again a transaction that failed for another reason, nor one it joined', async (t) => {
      const fresh = await freshStore(engine);
      t.after(() => fresh.close());
      const db = fresh.store.db;
      await db.insertInto('setting').values({ name: 'a', value: '0' }).execute();
      let attempts = 0;
      await assert.rejects(
        inTransaction(db, async (trx) => {
          attempts++;
          await trx.insertInto('setting').values({ name: 'a', value: '1' }).execute();
        }),
      );
      assert.equal(attempts, 1);

      let inner = 0;
      await assert.rejects(
        db.transaction().execute((trx) =>
          inTransaction(trx, async (joined) => {
            inner++;
            await abortForAnother(engine, joined);
          }),
        ),
      );
      assert.equal(inner, 1);
    });
  });
}
