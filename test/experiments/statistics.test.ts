// The statistics of an experiment's results and the assignment of shoppers, as pure functions:
// sticky assignment within ±2 % of the weights over 100,000 simulated shoppers, Wilson intervals
// against known values, a known effect (the variant's clicks doubled) found significant and an
// A/A test found so no more often than the stated level, over many seeds.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { seededRandom } from '../../src/demo/seeded-random.js';
import { assign, runsAt, servedExperiment } from '../../src/experiments/assignment.js';
import { isRunning } from '../../src/experiments/service.js';
import {
  compare,
  normalCdf,
  requiredSampleSize,
  SIGNIFICANCE,
  wilson,
} from '../../src/experiments/statistics.js';

const SHOPPERS = 100_000;

function experimentOf(id: string, weights: number[]) {
  return servedExperiment({
    app: 'shop',
    id,
    settings: JSON.stringify({
      uniqueIdParameter: 'user_id',
      variants: weights.map((weight, i) => ({ id: `v${i}`, params: [], weight, rewrites: true })),
      enabled: true,
      metrics: [],
    }),
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  });
}

describe('assignment', () => {
  test('is sticky and within ±2 % of the weights over 100,000 simulated shoppers', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z0-9-]{1,20}$/),
        fc
          .array(fc.integer({ min: 0, max: 100 }), { minLength: 2, maxLength: 5 })
          .filter((w) => w.some((x) => x > 0)),
        fc.string({ maxLength: 8 }),
        (id, weights, prefix) => {
          const experiment = experimentOf(id, weights);
          const total = weights.reduce((a, b) => a + b, 0);
          const counts = new Map<string, number>();
          for (let i = 0; i < SHOPPERS; i++) {
            const unit = `${prefix}${i}`;
            const variant = assign(experiment, unit).id;
            counts.set(variant, (counts.get(variant) ?? 0) + 1);
            // Sticky: the same shopper, the same variant (every 97th checked again, to stay fast).
            if (i % 97 === 0) assert.equal(assign(experiment, unit).id, variant);
          }
          weights.forEach((weight, i) => {
            const share = (counts.get(`v${i}`) ?? 0) / SHOPPERS;
            assert.ok(
              Math.abs(share - weight / total) <= 0.02,
              `v${i}: ${share} against ${weight / total} (weights ${weights})`,
            );
            if (weight === 0) assert.equal(counts.get(`v${i}`) ?? 0, 0, 'a variant of weight 0 gets no one');
          });
        },
      ),
      { numRuns: 5 },
    );
  });

  test('runs while enabled, from its start and before its end, as the stored experiment says', () => {
    const start = Date.UTC(2026, 0, 1);
    const end = Date.UTC(2026, 0, 2);
    for (const [enabled, startTimestamp, endTimestamp] of [
      [true, undefined, undefined],
      [true, start, end],
      [false, start, end],
      [true, undefined, end],
      [true, start, undefined],
    ] as const) {
      const settings = {
        uniqueIdParameter: 'user_id',
        variants: [
          { id: 'a', params: [], weight: 1, rewrites: true },
          { id: 'b', params: [], weight: 1, rewrites: true },
        ],
        enabled,
        metrics: [],
        ...(startTimestamp === undefined ? {} : { startTimestamp: new Date(startTimestamp).toISOString() }),
        ...(endTimestamp === undefined ? {} : { endTimestamp: new Date(endTimestamp).toISOString() }),
      };
      const row = {
        app: 'shop',
        id: 'x',
        settings: JSON.stringify(settings),
        created_at: '',
        updated_at: '',
      };
      for (const at of [start - 1, start, start + 1, end - 1, end, end + 1]) {
        assert.equal(
          runsAt(servedExperiment(row), at),
          isRunning(settings, at),
          `${JSON.stringify(settings)} at ${at}`,
        );
        assert.equal(
          isRunning(settings, at),
          enabled &&
            (startTimestamp === undefined || at >= startTimestamp) &&
            (endTimestamp === undefined || at < endTimestamp),
        );
      }
    }
  });

  test('a request without the parameter gets the control', () => {
    assert.equal(assign(experimentOf('x', [0, 1]), undefined).id, 'v0');
  });

  test('two experiments assign the same shoppers independently', () => {
    const a = experimentOf('first', [1, 1]);
    const b = experimentOf('second', [1, 1]);
    let same = 0;
    for (let i = 0; i < 20_000; i++) if (assign(a, `u${i}`).id === assign(b, `u${i}`).id) same++;
    assert.ok(Math.abs(same / 20_000 - 0.5) < 0.02, `${same} of 20,000 alike`);
  });
});

describe('statistics', () => {
  test('Wilson intervals match known values', () => {
    const close = (actual: number, expected: number) =>
      assert.ok(Math.abs(actual - expected) < 1e-4, `${actual} ≠ ${expected}`);
    const half = wilson(5, 10);
    close(half.value, 0.5);
    close(half.low, 0.2366);
    close(half.high, 0.7634);
    const none = wilson(0, 10);
    close(none.low, 0);
    close(none.high, 0.2775);
    assert.deepEqual(wilson(0, 0), { value: 0, low: 0, high: 1 });
    close(normalCdf(1.959963984540054), 0.975);
    close(normalCdf(0), 0.5);
  });

  test('the two-proportion test matches a computed example', () => {
    // 100 of 1000 against 130 of 1000: z = 0.03 / sqrt(0.115 · 0.885 · 0.002) = 2.1022, p = 0.0355.
    const result = compare({ successes: 100, trials: 1000 }, { successes: 130, trials: 1000 });
    assert.ok(Math.abs(result.difference - 0.03) < 1e-12);
    assert.ok(Math.abs(result.pValue - 0.0355) < 5e-4, String(result.pValue));
    assert.equal(result.significant, true);
    assert.ok(result.low > 0 && result.high < 0.06);
    // 10 % against 13 %: about 1,770 per arm at 5 % with 80 % power.
    const n = requiredSampleSize(0.1, 0.13)!;
    assert.ok(n > 1700 && n < 1800, String(n));
    assert.equal(requiredSampleSize(0.1, 0.1), null);
  });

  /** Searches of two variants with these click probabilities; the counts of searches with a click. */
  function simulate(seed: number, control: number, variant: number, searches: number) {
    const random = seededRandom(seed);
    let a = 0;
    let b = 0;
    for (let i = 0; i < searches; i++) {
      if (random() < control) a++;
      if (random() < variant) b++;
    }
    return compare({ successes: a, trials: searches }, { successes: b, trials: searches });
  }

  test("a known effect (the variant's clicks doubled) is found significant over many seeds", () => {
    const seeds = 200;
    let found = 0;
    for (let seed = 1; seed <= seeds; seed++) {
      const result = simulate(seed, 0.05, 0.1, 2000);
      if (result.significant && result.difference > 0) found++;
    }
    // The power of this design is above 99.9 %.
    assert.ok(found >= seeds - 2, `found in ${found} of ${seeds}`);
  });

  test('an A/A test is found significant no more often than the stated level, over many seeds', () => {
    const seeds = 1000;
    let significant = 0;
    for (let seed = 1; seed <= seeds; seed++)
      if (simulate(seed, 0.08, 0.08, 2000).pValue < SIGNIFICANCE) significant++;
    // Expected 5 % (50 of 1000, standard deviation about 7): well under 8 %.
    assert.ok(significant / seeds < 0.08, `${significant} of ${seeds} significant`);
    assert.ok(significant > 0, 'a test that never finds anything is no test');
  });
});
