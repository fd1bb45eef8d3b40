// An experiment's results read from the rollups equal the same computed plainly from the raw
// signals: searches, shoppers and rates per variant with their intervals, each variant against
// the control. Searches of users (not counted), without the shopper's id, of other
// experiments and outside any experiment count nowhere.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { seededRandom } from '../../src/demo/seeded-random.js';
import { compare, requiredSampleSize, wilson } from '../../src/experiments/statistics.js';
import {
  createProfile,
  insertSearches,
  insertSignals,
  type SeedSearch,
  type SeedSignal,
} from '../analytics/seed.js';
import { call } from '../helpers/api.js';
import { build, engines, skipReason } from '../helpers/app.js';

const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 2, 10, 12);
const START = Date.UTC(2026, 2, 9);
const VARIANTS = ['control', 'bold', 'calm'];

/** Searches over a day and a half with clicks and purchases; variant `bold` clicks more. */
function simulate(seed: number) {
  const random = seededRandom(seed);
  const searches: Array<SeedSearch & { id: string }> = [];
  const signals: SeedSignal[] = [];
  for (let i = 0; i < 600; i++) {
    const id = `s${seed}-${i}`;
    const at = START + Math.floor(random() * 36 * HOUR);
    const unit = `u${Math.floor(random() * 150)}`;
    const variant = VARIANTS[Math.floor(random() * VARIANTS.length)]!;
    const kind = random();
    const search: SeedSearch & { id: string } = {
      id,
      at,
      query: random() < 0.5 ? 'shoes' : 'hat',
      hits: random() < 0.1 ? 0 : 12,
      docIds: ['d1', 'd2'],
      ...(kind < 0.85 ? { experiment: { id: 'ab', variant, unit } } : {}),
      // Some of another experiment, some of users (not counted).
      ...(kind >= 0.85 && kind < 0.9 ? { experiment: { id: 'other', variant: 'control', unit } } : {}),
      ...(kind >= 0.9 && kind < 0.95 ? { experiment: { id: 'ab', variant, unit }, counted: false } : {}),
    };
    searches.push(search);
    const clickP = variant === 'bold' ? 0.5 : 0.3;
    if (search.hits > 0 && random() < clickP) {
      signals.push({ queryId: id, type: 'click', docId: 'd1', at: at + 1000 });
      if (random() < 0.3) signals.push({ queryId: id, type: 'click', docId: 'd2', at: at + 2000 });
      if (random() < 0.25) signals.push({ queryId: id, type: 'purchase', docId: 'd1', at: at + 3000 });
    }
  }
  return { searches, signals };
}

/** The answer computed plainly from the raw rows. */
function reference({ searches, signals }: ReturnType<typeof simulate>) {
  const of = (variant: string) =>
    searches.filter(
      (s) => s.counted !== false && s.experiment?.id === 'ab' && s.experiment.variant === variant,
    );
  const has = (search: { id: string }, type: string) =>
    signals.some((signal) => signal.queryId === search.id && signal.type === type);
  const counts = VARIANTS.map((variant) => {
    const own = of(variant);
    return {
      variant,
      searches: own.length,
      shoppers: new Set(own.map((s) => s.experiment!.unit)).size,
      clicks: own.filter((s) => has(s, 'click')).length,
      purchases: own.filter((s) => has(s, 'purchase')).length,
      none: own.filter((s) => s.hits === 0).length,
    };
  });
  const control = counts[0]!;
  const fields = [
    ['ctr', 'clicks'],
    ['conversionRate', 'purchases'],
    ['noResultRate', 'none'],
  ] as const;
  const variants = counts.map((c, i) => ({
    id: c.variant,
    control: i === 0,
    searches: c.searches,
    shoppers: c.shoppers,
    ctr: wilson(c.clicks, c.searches),
    conversionRate: wilson(c.purchases, c.searches),
    noResultRate: wilson(c.none, c.searches),
    ...(i === 0
      ? {}
      : {
          vsControl: Object.fromEntries(
            fields.map(([rate, field]) => [
              rate,
              compare(
                { successes: control[field], trials: control.searches },
                { successes: c[field], trials: c.searches },
              ),
            ]),
          ),
        }),
  }));
  const sampleSize = Object.fromEntries(
    fields.map(([rate, field]) => {
      const needed = counts
        .slice(1)
        .map((c) => requiredSampleSize(control[field] / control.searches, c[field] / c.searches))
        .filter((n): n is number => n !== null);
      return [rate, needed.length === 0 ? null : Math.max(...needed)];
    }),
  );
  return { variants, sampleSize };
}

for (const engine of engines) {
  describe(`experiment results on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('equal a reference computed from the raw signals', async (t) => {
      const { app, store } = await build(t, engine, { now: () => new Date(NOW) });
      await createProfile(app);
      const created = await call(app, 'POST', '/api/apps/shop/experiments', {
        id: 'ab',
        variants: VARIANTS.map((id) => ({ id, weight: 1 })),
      });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const empty = await call(app, 'GET', '/api/apps/shop/experiments/ab/metrics');
      assert.equal(empty.status, 200, JSON.stringify(empty.body));
      assert.deepEqual(
        empty.body.variants.map((v: { searches: number; shoppers: number }) => [v.searches, v.shoppers]),
        [
          [0, 0],
          [0, 0],
          [0, 0],
        ],
      );
      const simulated = simulate(7);
      await insertSearches(store.db, simulated.searches);
      await insertSignals(store.db, simulated.signals);
      await app.parts.analytics.rollChanged();

      const answer = await call(app, 'GET', '/api/apps/shop/experiments/ab/metrics');
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const expected = reference(simulated);
      assert.deepEqual(answer.body.variants, expected.variants);
      assert.deepEqual(answer.body.sampleSize, expected.sampleSize);
      assert.equal(answer.body.confidenceLevel, 0.95);
      assert.ok(
        expected.variants.every((v) => v.searches > 100),
        'every variant has searches',
      );
      assert.equal((await call(app, 'GET', '/api/apps/shop/experiments/nope/metrics')).status, 404);
    });
  });
}
