// The prepared reads of the hot paths (a link check, a failure window, a token's client) run
// on SQLite on a read-only connection of their own. They must read exactly the committed
// state: every committed write at once, never the write of a transaction under way, while a
// read through that transaction still sees its own writes. The same holds on PostgreSQL, where
// every read takes a pooled connection.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { withTimeout } from '../../src/clusters/timeout.js';
import { checkLinks } from '../../src/links/service.js';
import { PreparedQueries } from '../../src/storage/prepared-query.js';
import { engines, freshStore, skipReason } from '../helpers/app.js';

const row = (subject: string, object: string) => ({
  subject,
  link_type: 'relatesTo',
  object,
  given_reversed: 0,
  originator: 'test',
  created_at: '2026-01-01T00:00:00.000Z',
});

/** The promise's value, or a failure naming `what` when it takes longer than a test should wait. */
const within = <T>(promise: Promise<T>, what: string): Promise<T> =>
  withTimeout(promise, 2000, () => new Error(`${what} did not answer within 2 s`));

for (const engine of engines) {
  describe(`prepared point reads on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('a check outside a transaction answers the committed state while the transaction runs', async (t) => {
      const fresh = await freshStore(engine);
      t.after(() => fresh.close());
      const { db } = fresh.store;
      const filter = { subject: 'component:a', object: 'resource:b', linkType: 'relatesTo' as const };
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('link').values(row('component:a', 'resource:b')).execute();
        assert.equal(await checkLinks(trx, filter), true, 'the transaction sees its own write');
        assert.equal(
          await within(checkLinks(db, filter), 'a check beside the transaction'),
          false,
          'nobody else sees it before the commit',
        );
      });
      assert.equal(await checkLinks(db, filter), true, 'everybody sees it once committed');
    });

    test('a rolled-back write is never seen, and a committed delete is seen at once', async (t) => {
      const fresh = await freshStore(engine);
      t.after(() => fresh.close());
      const { db } = fresh.store;
      const filter = { subject: 'component:c', object: 'resource:d' };
      await assert.rejects(
        db.transaction().execute(async (trx) => {
          await trx.insertInto('link').values(row('component:c', 'resource:d')).execute();
          throw new Error('rolled back');
        }),
        /rolled back/,
      );
      assert.equal(await checkLinks(db, filter), false);
      await db.insertInto('link').values(row('component:c', 'resource:d')).execute();
      assert.equal(await checkLinks(db, filter), true);
      await db.deleteFrom('link').where('subject', '=', 'component:c').execute();
      assert.equal(await checkLinks(db, filter), false);
    });

    test('checks answer what the stored rows say after any sequence of writes', async (t) => {
      const fresh = await freshStore(engine);
      t.after(() => fresh.close());
      const { db } = fresh.store;
      const names = ['a', 'b', 'c'];
      const write = fc.record({
        subject: fc.constantFrom(...names),
        object: fc.constantFrom(...names),
        add: fc.boolean(),
      });
      await fc.assert(
        fc.asyncProperty(fc.array(write, { maxLength: 12 }), async (writes) => {
          await db.deleteFrom('link').execute();
          const stored = new Set<string>();
          for (const { subject, object, add } of writes) {
            const key = `${subject}>${object}`;
            if (add && !stored.has(key)) {
              await db
                .insertInto('link')
                .values(row(`component:${subject}`, `resource:${object}`))
                .execute();
              stored.add(key);
            } else if (!add) {
              await db
                .deleteFrom('link')
                .where('subject', '=', `component:${subject}`)
                .where('object', '=', `resource:${object}`)
                .execute();
              stored.delete(key);
            }
            for (const s of names) {
              for (const o of names) {
                const found = await checkLinks(db, { subject: `component:${s}`, object: `resource:${o}` });
                assert.equal(found, stored.has(`${s}>${o}`), `${s}>${o} after ${JSON.stringify(writes)}`);
              }
            }
          }
        }),
        { numRuns: 25 },
      );
    });

    test('a prepared statement that writes still runs, through the main connection', async (t) => {
      const fresh = await freshStore(engine);
      t.after(() => fresh.close());
      const { db } = fresh.store;
      const inserts = new PreparedQueries<never>('point_reads_test');
      await inserts.execute(
        db,
        'one',
        (db, parameter) => db.insertInto('link').values(row(parameter(0), parameter(1))),
        ['component:w', 'resource:x'],
      );
      assert.equal(await checkLinks(db, { subject: 'component:w', object: 'resource:x' }), true);
    });
  });
}
