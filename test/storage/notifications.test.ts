import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { freshStore, skipReason } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';

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
    await eventually(
      async () => {
        if (heard.length > 0) return true;
        await notifications.publish(store.db, channel, 'ready');
        return false;
      },
      { within: 5000, message: 'the listener heard nothing' },
    );
    await store.db
      .transaction()
      .execute(async (trx) => {
        await notifications.publish(trx, channel, 'rolled back');
        throw new Error('undo');
      })
      .catch(() => {});
    await store.db.transaction().execute((trx) => notifications.publish(trx, channel, 'committed'));
    await eventually(() => heard.includes('committed'), {
      within: 2000,
      message: 'the committed notice did not arrive',
    });
    assert.deepEqual(
      heard.filter((payload) => payload !== 'ready'),
      ['committed'],
      'only the committed notice arrives',
    );
  });
});
