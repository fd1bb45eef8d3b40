import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  countFailure,
  currentWindow,
  endCheck,
  startCheck,
} from '../../src/http/attempt-window-repository.js';
import { engines, freshStore, skipReason } from '../helpers/app.js';

const now = new Date('2026-11-24T10:00:00.000Z');
const end = new Date('2026-11-24T10:01:00.000Z');

for (const engine of engines) {
  describe(`attempt windows on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('loses no failure counted in parallel through two connections', async (t) => {
      const fresh = await freshStore(engine);
      t.after(() => fresh.close());
      const stores = [fresh.store, fresh.openAnother()];
      await Promise.all(
        Array.from({ length: 100 }, (_, i) => countFailure(stores[i % 2]!.db, 'admin-login', 'c', now, end)),
      );
      const window = await currentWindow(fresh.store.db, 'admin-login', 'c', now);
      assert.deepEqual(window, { failures: 100, pending: 0, window_ends_at: end.toISOString() });
      assert.equal(await currentWindow(fresh.store.db, 'token-request', 'c', now), undefined);
    });

    test('starts no more checks in parallel than failures are left', async (t) => {
      const fresh = await freshStore(engine);
      t.after(() => fresh.close());
      const stores = [fresh.store, fresh.openAnother()];
      await countFailure(fresh.store.db, 'token-request', 'c', now, end);
      await countFailure(fresh.store.db, 'token-request', 'c', now, end);
      const started = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          startCheck(stores[i % 2]!.db, 'token-request', 'c', now, end, 10),
        ),
      );
      const slots = started.filter((window) => window !== undefined);
      assert.equal(slots.length, 8);
      assert.deepEqual(await currentWindow(fresh.store.db, 'token-request', 'c', now), {
        failures: 2,
        pending: 8,
        window_ends_at: end.toISOString(),
      });
      await Promise.all(
        slots.map((window, i) => endCheck(stores[i % 2]!.db, 'token-request', 'c', window!, i < 3)),
      );
      assert.deepEqual(await currentWindow(fresh.store.db, 'token-request', 'c', now), {
        failures: 5,
        pending: 0,
        window_ends_at: end.toISOString(),
      });
    });

    test('starts a new window at the end of the old one, and leaves it alone when an old check ends', async (t) => {
      const fresh = await freshStore(engine);
      t.after(() => fresh.close());
      const { db } = fresh.store;
      const old = await startCheck(db, 'admin-login', 'c', now, end, 10);
      assert.equal(old, end.toISOString());
      for (let i = 0; i < 9; i++) await countFailure(db, 'admin-login', 'c', now, end);
      assert.equal(await startCheck(db, 'admin-login', 'c', now, end, 10), undefined, 'no room left');
      const later = new Date(end.getTime() + 5_000);
      const laterEnd = new Date(later.getTime() + 60_000);
      assert.equal(await currentWindow(db, 'admin-login', 'c', later), undefined, 'the window has ended');
      assert.equal(await startCheck(db, 'admin-login', 'c', later, laterEnd, 10), laterEnd.toISOString());
      assert.equal(await endCheck(db, 'admin-login', 'c', old!, true), false, 'the old window is gone');
      assert.deepEqual(await currentWindow(db, 'admin-login', 'c', later), {
        failures: 0,
        pending: 1,
        window_ends_at: laterEnd.toISOString(),
      });
    });
  });
}
