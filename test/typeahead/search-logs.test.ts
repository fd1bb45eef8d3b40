import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { adminAuth, build, contractTest, engines, skipReason } from '../helpers/app.js';
import { admin, createInstance, suggest } from './helpers.js';

const NOW = new Date('2026-11-21T10:30:00.000Z');
const daysAgo = (days: number) => new Date(NOW.getTime() - days * 86_400_000).toISOString();

for (const engine of engines) {
  describe(`Typeahead search logs on ${engine}`, { skip: await skipReason(engine) }, () => {
    const contract = contractTest(engine);
    test('counts searches by key, shows the most entered form, and rejects empty or old ones', async (t) => {
      const { app } = await build(t, engine, { now: () => NOW });
      const { id, embedToken } = await createInstance(app, { minCount: 3, topTermsWindowDays: 7 });
      const logged = await admin(app, 'POST', `/instances/${id}/search-logs`, [
        { query: 'Kettle' },
        { query: 'kettle', count: 2 },
        { query: ' KETTLE ', timestamp: daysAgo(1) },
        { query: 'toaster', count: 2 },
        { query: '   ' },
        { query: 'toaster', timestamp: daysAgo(8) },
      ]);
      assert.equal(logged.status, 202);
      assert.deepEqual(logged.body, { accepted: 6, rejected: 2 });
      const counts = await admin(app, 'POST', `/instances/${id}/refresh`);
      assert.deepEqual(counts.body, { custom: 0, topSearched: 1, served: 1 });
      assert.deepEqual((await suggest(app, embedToken)).body, ['kettle']);
      const terms = await admin(app, 'GET', `/instances/${id}/terms`);
      assert.deepEqual(terms.body.topSearched, [{ term: 'kettle', count: 4 }]);
    });

    contract('accepts NDJSON and names a malformed line', async (t) => {
      const { app } = await build(t, engine, { now: () => NOW });
      const { id } = await createInstance(app);
      const post = (payload: string) =>
        app.inject({
          method: 'POST',
          url: `/api/typeahead/instances/${id}/search-logs`,
          headers: { authorization: adminAuth, 'content-type': 'application/x-ndjson' },
          payload,
        });
      const good = await post('{"query":"kettle"}\n{"query":"toaster","count":3}\n\n');
      assert.equal(good.statusCode, 202);
      assert.deepEqual(good.json(), { accepted: 4, rejected: 0 });
      const bad = await post('{"query":"kettle"}\n{"query":\n');
      assert.equal(bad.statusCode, 400);
      assert.match(bad.json().message, /line 2/);
    });

    contract('refuses more than 10,000 entries in one call', async (t) => {
      const { app } = await build(t, engine, { now: () => NOW });
      const { id } = await createInstance(app);
      const entries = Array.from({ length: 10_001 }, () => ({ query: 'a' }));
      assert.equal((await admin(app, 'POST', `/instances/${id}/search-logs`, entries)).status, 400);
    });

    test('keeps private, short, rare and old queries out of the top searched and prunes old buckets', async (t) => {
      let now = NOW;
      const { app, store } = await build(t, engine, { now: () => now });
      const { id, embedToken } = await createInstance(app, { minCount: 2, topTermsWindowDays: 2 });
      const queries = [
        'jane.doe@example.com',
        '+49 170 1234567',
        '(555) 123-4567',
        'x',
        'iphone 15 pro',
        'rtx 3080 ti',
        'once',
      ];
      await admin(
        app,
        'POST',
        `/instances/${id}/search-logs`,
        queries.map((query) => ({ query, count: query === 'once' ? 1 : 5 })),
      );
      await admin(app, 'POST', `/instances/${id}/search-logs`, [
        { query: 'yesterday', count: 2, timestamp: daysAgo(1.5) },
      ]);
      await admin(app, 'POST', `/instances/${id}/refresh`);
      assert.deepEqual((await suggest(app, embedToken)).body, ['iphone 15 pro', 'rtx 3080 ti', 'yesterday']);
      now = new Date(NOW.getTime() + 86_400_000);
      await admin(app, 'POST', `/instances/${id}/refresh`);
      assert.deepEqual((await suggest(app, embedToken)).body, ['iphone 15 pro', 'rtx 3080 ti']);
      const left = await store.db
        .selectFrom('typeahead_search_count')
        .select('key')
        .where('instance_id', '=', id)
        .where('key', '=', 'yesterday')
        .execute();
      assert.deepEqual(left, [], 'buckets that left the window are deleted');
    });

    test('keeps only the 1,000 most searched keys', async (t) => {
      const { app } = await build(t, engine, { now: () => NOW });
      const { id } = await createInstance(app, { minCount: 1 });
      const entries = Array.from({ length: 1200 }, (_, i) => ({ query: `term ${i}`, count: 1 + (i % 7) }));
      await admin(app, 'POST', `/instances/${id}/search-logs`, entries);
      const counts = await admin(app, 'POST', `/instances/${id}/refresh`);
      assert.equal(counts.body.topSearched, 1000);
      const top = (await admin(app, 'GET', `/instances/${id}/terms`)).body.topSearched as Array<{
        count: number;
      }>;
      assert.ok(
        top.every((entry) => entry.count >= 2),
        'the least searched fell out',
      );
    });
  });
}
