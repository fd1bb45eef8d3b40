// Which search a click belongs to: the one it names (fusion_query_id), else the same shopper's
// last search that showed the document within 30 minutes, else none; searches still waiting
// in this node's batch count.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { adminAuth, build, buildNodes, engines, skipReason } from '../helpers/app.js';
import { hasher, postSignals, searchSignal, storedSignals } from './helpers.js';

const T = Date.parse('2026-11-28T08:00:00.000Z');
const MIN = 60_000;

for (const engine of engines) {
  describe(`Attribution of signals on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('a click naming its search belongs to it, and takes its query and position from it', async (t) => {
      const { app, store } = await build(t, engine);
      // Still in the batch, not written: the click's request writes it first.
      app.parts.signals.searchSignals.addRow(
        searchSignal({ id: 'q-sent', at: T, query: 'Kettles', query_key: 'kettles' }),
      );
      const answer = await postSignals(
        app,
        [
          { id: 'a', type: 'click', timestamp: T + MIN, params: { docId: 'P3', fusion_query_id: 'q-sent' } },
          // A query id that no search has is kept as sent.
          {
            id: 'b',
            type: 'cart',
            timestamp: T + MIN,
            params: { docId: 'P3', fusion_query_id: 'unknown', query: 'own' },
          },
        ],
        { authorization: adminAuth },
      );
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const [a, b] = await storedSignals(store.db);
      assert.deepEqual(
        [a!.query_id, a!.attribution, a!.query, a!.query_key, a!.position],
        ['q-sent', 'sent', 'Kettles', 'kettles', 3],
      );
      assert.deepEqual(
        [b!.query_id, b!.attribution, b!.query, b!.position],
        ['unknown', 'sent', 'own', null],
      );
    });

    test("a click without one belongs to the shopper's last search that showed the document within 30 minutes", async (t) => {
      const { app, store } = await build(t, engine);
      const u1 = hasher.hash('u1');
      const s1 = hasher.hash('s1');
      for (const row of [
        searchSignal({ id: 'older', at: T, user_hash: u1, doc_ids: JSON.stringify(['P1', 'P2']) }),
        searchSignal({
          id: 'last',
          at: T + 5 * MIN,
          user_hash: u1,
          query: 'Blue kettle',
          doc_ids: JSON.stringify(['P9', 'P2']),
        }),
        // Later, but it did not show P2.
        searchSignal({ id: 'unrelated', at: T + 8 * MIN, user_hash: u1, doc_ids: JSON.stringify(['P7']) }),
        searchSignal({ id: 'by-session', at: T, session_hash: s1, doc_ids: JSON.stringify(['P4']) }),
        searchSignal({
          id: 'elsewhere',
          at: T,
          user_hash: u1,
          collection: 'books',
          doc_ids: JSON.stringify(['P5']),
        }),
      ])
        app.parts.signals.searchSignals.addRow(row);
      await app.parts.signals.searchSignals.flush();
      const click = (id: string, at: number, params: Record<string, unknown>) => ({
        id,
        type: 'click',
        timestamp: at,
        params,
      });
      const answer = await postSignals(
        app,
        [
          click('inferred', T + 10 * MIN, { docId: 'P2', user_id: 'u1' }),
          click('first-only', T + 3 * MIN, { docId: 'P2', user_id: 'u1' }),
          click('too-late', T + 5 * MIN + 31 * MIN, { docId: 'P2', user_id: 'u1' }),
          click('other-shopper', T + 10 * MIN, { docId: 'P2', user_id: 'u2' }),
          click('session', T + 10 * MIN, { docId: 'P4', session: 's1' }),
          // A user id is looked for first: the session's search is not this user's.
          click('user-first', T + 10 * MIN, { docId: 'P4', user_id: 'u1', session: 's1' }),
          click('no-shopper', T + 10 * MIN, { docId: 'P2' }),
          click('other-collection', T + 10 * MIN, { docId: 'P5', user_id: 'u1' }),
          {
            id: 'purchase',
            type: 'purchase',
            timestamp: T + 20 * MIN,
            params: { docId: 'P2', user_id: 'u1', query: 'mine' },
          },
        ],
        { authorization: adminAuth },
      );
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const rows = Object.fromEntries(
        (await storedSignals(store.db)).map((row) => [row.id.split('/')[2], [row.query_id, row.attribution]]),
      );
      assert.deepEqual(rows, {
        inferred: ['last', 'inferred'],
        'first-only': ['older', 'inferred'],
        'too-late': [null, null],
        'other-shopper': [null, null],
        session: ['by-session', 'inferred'],
        'user-first': [null, null],
        'no-shopper': [null, null],
        'other-collection': [null, null],
        purchase: ['last', 'inferred'],
      });
      const inferred = (await storedSignals(store.db)).find((row) => row.id.endsWith('/inferred'))!;
      assert.deepEqual([inferred.query, inferred.position], ['Blue kettle', 2]);
      const purchase = (await storedSignals(store.db)).find((row) => row.id.endsWith('/purchase'))!;
      assert.equal(purchase.query, 'mine');
      // Exactly 30 minutes after the search still counts.
      const edge = await postSignals(
        app,
        [click('edge', T + 5 * MIN + 30 * MIN, { docId: 'P2', user_id: 'u1' })],
        {
          authorization: adminAuth,
        },
      );
      assert.equal(edge.status, 200);
      const stored = (await storedSignals(store.db)).find((row) => row.id.endsWith('/edge'))!;
      assert.equal(stored.query_id, 'last');
    });

    test("one read serves every shopper of a batch: a shopper's many searches do not hide another's", async (t) => {
      const { app, store } = await build(t, engine);
      const busy = hasher.hash('busy');
      // 600 searches of one shopper, more than the 500 read per shopper: the oldest shows P1.
      for (let i = 0; i < 600; i++) {
        app.parts.signals.searchSignals.addRow(
          searchSignal({
            id: `busy-${i}`,
            at: T + i * 1000,
            user_hash: busy,
            doc_ids: JSON.stringify([i === 0 ? 'P1' : 'P9']),
          }),
        );
      }
      app.parts.signals.searchSignals.addRow(
        searchSignal({
          id: 'quiet',
          at: T,
          user_hash: hasher.hash('quiet'),
          doc_ids: JSON.stringify(['P1']),
        }),
      );
      const at = T + 601 * 1000;
      const answer = await postSignals(
        app,
        [
          { id: 'q', type: 'click', timestamp: at, params: { docId: 'P1', user_id: 'quiet' } },
          { id: 'b', type: 'click', timestamp: at, params: { docId: 'P9', user_id: 'busy' } },
        ],
        { authorization: adminAuth },
      );
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const rows = Object.fromEntries(
        (await storedSignals(store.db)).map((row) => [row.id.split('/')[2], row.query_id]),
      );
      assert.deepEqual(rows, { b: 'busy-599', q: 'quiet' });
    });

    test("a node finds the searches another node answered once that node's batch is written", async (t) => {
      const nodes = await buildNodes(t, engine, 2);
      const [one, two] = nodes.map((node) => node.app);
      one!.parts.signals.searchSignals.addRow(
        searchSignal({ id: 'on-one', at: T, user_hash: hasher.hash('u1') }),
      );
      await one!.parts.signals.searchSignals.flush();
      const answer = await postSignals(
        two!,
        [{ id: 'c', type: 'click', timestamp: T + MIN, params: { docId: 'P1', user_id: 'u1' } }],
        { authorization: adminAuth },
      );
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const [stored] = await storedSignals(nodes[0]!.store.db);
      assert.deepEqual([stored!.query_id, stored!.attribution], ['on-one', 'inferred']);
    });
  });
}
