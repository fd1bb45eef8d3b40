import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pino from 'pino';
import { Registry } from 'prom-client';
import { AnalyticsRollup, PACE } from '../../src/analytics/rollup-job.js';
import { JobMetrics } from '../../src/jobs/job-metrics.js';
import { build, buildNodes, engines, skipReason } from '../helpers/app.js';
import { analytics, createProfile, insertSearches, insertSignals } from './seed.js';

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

    test('a scheduled run holds back an hour whose last roll was long, and rolls it once its pace allows', async (t) => {
      let clock = NOW;
      const { app, store } = await build(t, engine, { now: () => new Date(clock) });
      await createProfile(app);
      // Each roll "takes" 0.5 s on this clock, which only the test moves otherwise.
      let monotonic = 0;
      const metrics = new Registry();
      const now = () => new Date(clock);
      const job = new AnalyticsRollup({
        store,
        metrics,
        jobs: new JobMetrics(metrics, now),
        log: pino({ level: 'silent' }),
        now,
        retentionDays: 396,
        monotonic: () => (monotonic += 500),
      });
      // Each search string's searches and clicks, as the answers read them from the rollups.
      const counted = async () => {
        const top = await analytics(app, '/searches?startDate=2026-03-10&endDate=2026-03-10');
        return top.body.searches.map((s: { search: string; count: number; clickCount: number }) => [
          s.search,
          s.count,
          s.clickCount,
        ]);
      };
      const [search] = await insertSearches(store.db, [{ at: NOW - 600_000, query: 'kettle', hits: 3 }]);
      assert.equal(await job.runScheduledJob(), true);
      assert.deepEqual(await counted(), [['kettle', 1, 0]]);

      // A click and a search arrive; the next run comes before 4 × 0.5 s have passed: held back.
      clock += 5_000;
      // (In the same hour as the first search: the pace is of an hour.)
      await insertSearches(store.db, [{ at: NOW - 300_000, query: 'kettle', hits: 3 }]);
      await insertSignals(store.db, [{ queryId: search!, type: 'click', docId: 'P1', at: clock - 500 }]);
      assert.equal(await job.runScheduledJob(), true);
      assert.deepEqual(await counted(), [['kettle', 1, 0]], 'held back');

      // Past the pace, the next run rolls it, though the click's arrival is behind its watermark now.
      clock += 5_000;
      monotonic += PACE * 1_000;
      assert.equal(await job.runScheduledJob(), true);
      assert.deepEqual(await counted(), [['kettle', 2, 1]]);
      const rate = await analytics(app, '/searches?startDate=2026-03-10&endDate=2026-03-10');
      assert.equal(rate.body.searches[0].trackedSearchCount ?? rate.body.searches[0].count, 2);

      // A roll asked for outside the schedule (a tool, a privacy delete) is never held back.
      await insertSearches(store.db, [{ at: NOW - 240_000, query: 'kettle', hits: 3 }]);
      await job.rollChanged();
      assert.deepEqual(await counted(), [['kettle', 3, 1]]);
    });
  });
}
