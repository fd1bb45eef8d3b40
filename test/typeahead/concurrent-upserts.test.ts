import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { build, engines, skipReason } from '../helpers/app.js';
import { admin, createInstance } from './helpers.js';

const NOW = new Date('2026-11-21T10:30:00.000Z');
const SENDERS = 4;
const BATCHES_PER_SENDER = 6;
const BATCH = 400;
// Few keys shared by every batch, each batch in its own shuffled order: without one lock
// order, two transactions take the same rows in opposite orders and PostgreSQL aborts one.
const KEYS = 300;

/** The same pseudo-random sequence every run (mulberry32). */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

for (const engine of engines) {
  describe(`Concurrent multi-row upserts on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('four senders of overlapping search logs are all accepted and every search is counted once', async (t) => {
      const { app } = await build(t, engine, { now: () => NOW });
      const { id } = await createInstance(app, { minCount: 1, topTermsWindowDays: 7 });
      const random = seededRandom(12);
      // Two forms per key ("Term 7" and "term 7") and three hours, so both tables get contended rows.
      const batches = Array.from({ length: SENDERS }, () =>
        Array.from({ length: BATCHES_PER_SENDER }, () =>
          shuffled(
            Array.from({ length: BATCH }, (_, i) => ({
              query: `${i % 2 === 0 ? 'Term' : 'term'} ${Math.floor(random() * KEYS)}`,
              timestamp: new Date(NOW.getTime() - (i % 3) * 3_600_000).toISOString(),
              count: 1 + (i % 4),
            })),
            random,
          ),
        ),
      );
      const statuses: number[] = [];
      await Promise.all(
        batches.map(async (own) => {
          for (const batch of own) {
            const logged = await admin(app, 'POST', `/instances/${id}/search-logs`, batch);
            statuses.push(logged.status);
            if (logged.status !== 202)
              assert.fail(`answered ${logged.status}: ${JSON.stringify(logged.body)}`);
          }
        }),
      );
      assert.deepEqual(statuses, Array(SENDERS * BATCHES_PER_SENDER).fill(202));

      const expected = new Map<string, number>();
      for (const entry of batches.flat(2)) {
        const key = entry.query.toLowerCase();
        expected.set(key, (expected.get(key) ?? 0) + entry.count);
      }
      const refreshed = await admin(app, 'POST', `/instances/${id}/refresh`);
      assert.equal(refreshed.status, 200);
      const terms = await admin(app, 'GET', `/instances/${id}/terms`);
      const counted = new Map<string, number>(
        terms.body.topSearched.map((t: { term: string; count: number }) => [t.term.toLowerCase(), t.count]),
      );
      assert.deepEqual(
        [...counted].sort(([a], [b]) => (a < b ? -1 : 1)),
        [...expected].sort(([a], [b]) => (a < b ? -1 : 1)),
      );
    });

    test('four senders of overlapping curated terms are all applied and the lists hold their union', async (t) => {
      const { app } = await build(t, engine, { now: () => NOW });
      const { id } = await createInstance(app);
      const random = seededRandom(34);
      const changes = Array.from({ length: SENDERS * 3 }, () => {
        const terms = shuffled(
          Array.from({ length: KEYS }, (_, i) => `term ${i}`),
          random,
        ).slice(0, KEYS / 2);
        return { add: { included: terms.slice(0, 100), excluded: terms.slice(100) } };
      });
      const statuses: number[] = [];
      await Promise.all(
        Array.from({ length: SENDERS }, async (_, sender) => {
          for (let i = sender; i < changes.length; i += SENDERS) {
            statuses.push((await admin(app, 'PATCH', `/instances/${id}/terms`, changes[i])).status);
          }
        }),
      );
      assert.deepEqual(statuses, Array(changes.length).fill(200));
      const terms = await admin(app, 'GET', `/instances/${id}/terms`);
      const union = (list: 'included' | 'excluded') =>
        [...new Set(changes.flatMap((change) => change.add[list]))].sort();
      assert.deepEqual([...terms.body.included].sort(), union('included'));
      assert.deepEqual([...terms.body.excluded].sort(), union('excluded'));
    });
  });
}
