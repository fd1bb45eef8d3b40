import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { build, engines, skipReason } from '../helpers/app.js';
import * as reference from './reference.js';
import { analytics, createProfile, insertSearches, insertSignals, type SeedSignal } from './seed.js';

const HOUR = 3_600_000;
const D9 = Date.UTC(2026, 2, 9);
const D10 = Date.UTC(2026, 2, 10);
const RANGE = 'startDate=2026-03-09&endDate=2026-03-10&limit=1000';

// Few queries, documents and rules, so that they repeat and collide across hours.
const query = fc.constantFrom('shoes', 'Shoes', 'hat', 'red hat', 'socks');
const doc = fc.constantFrom('d1', 'd2', 'd3', 'd4');
const search = fc.record({
  at: fc.integer({ min: D9 + 14 * HOUR, max: D10 + 12 * HOUR - 1 }),
  query,
  hits: fc.constantFrom(0, 0, 3, 10),
  docIds: fc.uniqueArray(doc, { maxLength: 3 }),
  ruleIds: fc.uniqueArray(fc.constantFrom('r1', 'r2'), { maxLength: 2 }),
  counted: fc.constantFrom(true, true, true, false),
});
const signal = fc.record({
  of: fc.nat(),
  type: fc.constantFrom('click', 'click', 'cart', 'purchase', 'view'),
  docId: fc.option(doc, { nil: undefined }),
  position: fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }),
});

for (const engine of engines) {
  describe(`rollups on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('every answer from the rollups equals the same computed plainly from the raw rows', async (t) => {
      let clock = D10 + 12 * HOUR;
      const { app, store } = await build(t, engine, { now: () => new Date(clock) });
      await createProfile(app);
      const db = store.db;
      await fc.assert(
        fc.asyncProperty(
          fc.array(search, { minLength: 1, maxLength: 30 }),
          fc.array(signal, { maxLength: 40 }),
          fc.array(fc.nat(), { maxLength: 5 }),
          async (searches, signals, late) => {
            for (const table of [
              'signal',
              'search_signal',
              'analytics_hour',
              'analytics_day',
              'analytics_day_version',
            ] as const)
              await db.deleteFrom(table).execute();
            const seededSearches = searches.map((s, i) => ({ ...s, id: `s${i}` }));
            const seededSignals: SeedSignal[] = signals.map((g) => {
              const of = seededSearches[g.of % seededSearches.length]!;
              return {
                queryId: of.id,
                type: g.type,
                docId: g.docId,
                position: g.position,
                at: of.at,
                receivedAt: clock,
              };
            });
            // Some searches arrive after a first roll, as late rows do.
            const lateIds = new Set(late.map((n) => `s${n % seededSearches.length}`));
            await insertSearches(
              db,
              seededSearches.filter((s) => !lateIds.has(s.id)),
            );
            await insertSignals(db, seededSignals);
            clock += HOUR;
            await app.parts.analytics.rollChanged();
            await insertSearches(
              db,
              seededSearches.filter((s) => lateIds.has(s.id)),
            );
            clock += HOUR;
            await app.parts.analytics.rollChanged();
            const seeded = { searches: seededSearches, signals: seededSignals };
            const get = async (path: string) =>
              (await analytics(app, `${path}${path.includes('?') ? '&' : '?'}${RANGE}`)).body;
            assert.deepEqual((await get('/searches')).searches, reference.topSearches(seeded, D9, D10));
            assert.deepEqual(
              (await get('/searches/no-results')).searches,
              reference.noResults(seeded, D9, D10),
            );
            assert.deepEqual(
              (await get('/searches/no-clicks')).searches,
              reference.noClicks(seeded, D9, D10),
            );
            assert.deepEqual((await get('/rules')).rules, reference.rules(seeded, D9, D10));
            assert.deepEqual((await get('/documents')).documents, reference.documents(seeded, D9, D10));
            const hourly = await analytics(
              app,
              '/rates?startDate=2026-03-09&endDate=2026-03-10&interval=hour',
            );
            assert.deepEqual(hourly.body.dates, reference.rates(seeded, D9, D10, 'hour'));
          },
        ),
        { numRuns: 8 },
      );
    });
  });
}
