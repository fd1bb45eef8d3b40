import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { freshStore, skipReason } from '../helpers/app.js';

/** Waits until `count()` reaches `expected`, or fails after `withinMs`. */
async function reaches(count: () => number, expected: number, withinMs: number): Promise<void> {
  const started = Date.now();
  while (count() < expected) {
    if (Date.now() - started > withinMs)
      assert.fail(`${count()} notices of ${expected} within ${withinMs} ms`);
    await sleep(20);
  }
}

const postgresSkip = await skipReason('postgres');

describe('notifications between nodes', () => {
  test('SQLite has none: one process is the only node that hears its changes at once', async (t) => {
    const fresh = await freshStore('sqlite');
    t.after(() => fresh.close());
    assert.equal(fresh.store.notifications, undefined);
    assert.equal(fresh.store.synchronousDriver, true);
  });

  test('PostgreSQL delivers a notice published in a transaction when it commits, and never one rolled back', {
    skip: postgresSkip,
  }, async (t) => {
    const fresh = await freshStore('postgres');
    t.after(() => fresh.close());
    const { store } = fresh;
    assert.equal(store.synchronousDriver, false);
    const notifications = store.notifications!;
    const channel = `test_${randomBytes(6).toString('hex')}`;
    const heard: string[] = [];
    const listening = notifications.listen(channel, (payload) => heard.push(payload));
    t.after(() => listening.close());
    // The listener connects in the background: publish until it hears a first notice.
    const started = Date.now();
    while (heard.length === 0) {
      if (Date.now() - started > 5000) assert.fail('the listener heard nothing within 5 s');
      await notifications.publish(store.db, channel, 'ready');
      await sleep(50);
    }
    await store.db
      .transaction()
      .execute(async (trx) => {
        await notifications.publish(trx, channel, 'rolled back');
        throw new Error('undo');
      })
      .catch(() => {});
    await store.db.transaction().execute((trx) => notifications.publish(trx, channel, 'committed'));
    await reaches(() => heard.filter((payload) => payload === 'committed').length, 1, 2000);
    assert.deepEqual(
      heard.filter((payload) => payload !== 'ready'),
      ['committed'],
      'only the committed notice arrives',
    );
  });
});
