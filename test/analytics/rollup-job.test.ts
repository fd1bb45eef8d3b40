import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildNodes, engines, skipReason } from '../helpers/app.js';
import { analytics, createProfile, insertSearches } from './seed.js';

const NOW = Date.UTC(2026, 2, 10, 12);

for (const engine of engines) {
  describe(`the analytics rollup job on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('one node of several rolls on each tick, and every node answers from its rollups', async (t) => {
      const clock = NOW;
      const [first, second] = await buildNodes(t, engine, 2, { now: () => new Date(clock) });
      await createProfile(first!.app);
      // Written by "both" nodes, as several nodes accepting searches would.
      await insertSearches(first!.store.db, [{ at: NOW - 60_000, query: 'shoes', hits: 3 }]);
      await insertSearches(second!.store.db, [{ at: NOW - 30_000, query: 'shoes', hits: 5 }]);
      const runs = await Promise.all([
        first!.app.parts.analytics.runScheduledJob(),
        second!.app.parts.analytics.runScheduledJob(),
      ]);
      assert.deepEqual(
        runs.filter((ran) => ran),
        [true],
        'exactly one node took the lease',
      );
      for (const node of [first!, second!]) {
        const top = await analytics(node.app, '/searches?startDate=2026-03-10&endDate=2026-03-10');
        assert.deepEqual(
          top.body.searches.map((s: { search: string; count: number; nbHits: number }) => [
            s.search,
            s.count,
            s.nbHits,
          ]),
          [['shoes', 2, 5]],
        );
      }
    });
  });
}
