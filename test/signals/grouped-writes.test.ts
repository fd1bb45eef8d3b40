// Requests that arrive together share one write (signal-writer.ts): each still gets its own
// answer, a bad request among them changes nothing of the others, and a write that fails for
// one request's rows fails that request only.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SignalTable } from '../../src/signals/tables.js';
import { adminAuth, build, engines, skipReason } from '../helpers/app.js';
import { parseExposition, sampleValue } from '../operations/exposition.js';
import { clickRow, hasher, postSignals, searchSignal, storedSignals } from './helpers.js';

const T = Date.parse('2026-11-28T08:00:00.000Z');
const MIN = 60_000;

const clicks = (prefix: string, count: number, params: Record<string, unknown> = {}) =>
  Array.from({ length: count }, (_, i) => ({
    id: `${prefix}-${i}`,
    type: 'click',
    timestamp: T + MIN,
    params: { docId: 'P1', ...params },
  }));

for (const engine of engines) {
  describe(`Grouped writes of signals on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('concurrent requests are stored in fewer writes than requests, each answered with its own count', async (t) => {
      const { app, store } = await build(t, engine);
      const writes = async () => {
        const scraped = await app.inject({ url: '/metrics', headers: { authorization: adminAuth } });
        return sampleValue(parseExposition(scraped.body), 'searchdeck_signals_writes_total', {}) ?? 0;
      };
      const before = await writes();
      const answers = await Promise.all(
        [1, 2, 3, 4, 5].map((n) => postSignals(app, clicks(`r${n}`, n * 10), { authorization: adminAuth })),
      );
      assert.deepEqual(
        answers.map((answer) => [answer.status, answer.body]),
        [1, 2, 3, 4, 5].map((n) => [200, { accepted: n * 10 }]),
      );
      assert.equal((await storedSignals(store.db)).length, 150);
      const made = (await writes()) - before;
      assert.ok(made >= 1 && made < 5, `${made} writes for 5 requests`);
    });

    test('a bad request among good ones is refused and changes nothing; the good ones are stored', async (t) => {
      const { app, store } = await build(t, engine);
      const bad = [...clicks('bad', 3), { type: 'click', timestamp: 'yesterday', params: {} }];
      const answers = await Promise.all([
        postSignals(app, clicks('good-a', 5), { authorization: adminAuth }),
        postSignals(app, bad, { authorization: adminAuth }),
        postSignals(app, clicks('good-b', 7), { authorization: adminAuth }),
      ]);
      assert.deepEqual(
        answers.map((answer) => answer.status),
        [200, 400, 200],
      );
      assert.equal(answers[1]!.body.errors[0].field, '[3].timestamp');
      const ids = (await storedSignals(store.db)).map((row) => row.id.split('/')[2]!);
      assert.equal(ids.length, 12);
      assert.ok(ids.every((id) => id.startsWith('good-')));
    });

    test('a write that fails for one request fails that request only; the others of its group are stored', async (t) => {
      const { app, store } = await build(t, engine);
      // Rows no request can make (the body's schema requires a type): the database refuses them.
      const broken: SignalTable = { ...clickRow('shop/products/broken', T), type: null as unknown as string };
      const writer = app.parts.signals.writer;
      const [failed, good] = await Promise.allSettled([
        writer.write({ app: 'shop', collection: 'products' }, [broken]),
        postSignals(app, clicks('good', 4), { authorization: adminAuth }),
      ]);
      assert.equal(failed.status, 'rejected');
      assert.equal(good.status, 'fulfilled');
      assert.deepEqual(good.status === 'fulfilled' && [good.value.status, good.value.body], [
        200,
        { accepted: 4 },
      ]);
      const ids = (await storedSignals(store.db)).map((row) => row.id.split('/')[2]);
      assert.deepEqual(ids, ['good-0', 'good-1', 'good-2', 'good-3']);
    });

    test("requests for several collections written together are each attributed to their own collection's searches", async (t) => {
      const { app, store } = await build(t, engine);
      const u1 = hasher.hash('u1');
      const s1 = hasher.hash('s1');
      for (const row of [
        searchSignal({ id: 'products-search', at: T, user_hash: u1, doc_ids: JSON.stringify(['P1']) }),
        searchSignal({
          id: 'books-search',
          at: T,
          user_hash: u1,
          collection: 'books',
          doc_ids: JSON.stringify(['P1']),
        }),
        searchSignal({ id: 'session-search', at: T, session_hash: s1, doc_ids: JSON.stringify(['P1']) }),
      ])
        app.parts.signals.searchSignals.addRow(row);
      await app.parts.signals.searchSignals.flush();
      const answers = await Promise.all([
        postSignals(app, clicks('p', 2, { user_id: 'u1' }), { authorization: adminAuth }),
        postSignals(app, clicks('b', 2, { user_id: 'u1' }), {
          authorization: adminAuth,
          collection: 'books',
        }),
        postSignals(app, clicks('s', 1, { session: 's1' }), { authorization: adminAuth }),
        postSignals(app, clicks('n', 1, { user_id: 'u2' }), { authorization: adminAuth }),
      ]);
      assert.deepEqual(
        answers.map((answer) => answer.status),
        [200, 200, 200, 200],
      );
      const rows = Object.fromEntries(
        (await storedSignals(store.db)).map((row) => [row.id.split('/').slice(1).join('/'), row.query_id]),
      );
      assert.deepEqual(rows, {
        'books/b-0': 'books-search',
        'books/b-1': 'books-search',
        'products/n-0': null,
        'products/p-0': 'products-search',
        'products/p-1': 'products-search',
        'products/s-0': 'session-search',
      });
    });
  });
}
