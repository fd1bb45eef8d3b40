// A bad signal refuses its whole request: 400 in the common body naming the signal's index and
// field, and nothing of the request is stored.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { adminAuth, build, contractTest, engines, skipReason } from '../helpers/app.js';
import { postSignals, storedSignals } from './helpers.js';

/** A corruption of one signal, and the field the answer must name (after `[i].`). */
const CORRUPTIONS: Array<{ name: string; field: string; corrupt: (s: Record<string, unknown>) => void }> = [
  { name: 'type of the wrong type', field: 'type', corrupt: (s) => (s.type = 42) },
  { name: 'type missing', field: 'type', corrupt: (s) => delete s.type },
  { name: 'type with a space', field: 'type', corrupt: (s) => (s.type = 'add to cart') },
  { name: 'timestamp unreadable', field: 'timestamp', corrupt: (s) => (s.timestamp = 'yesterday') },
  {
    name: 'timestamp without a zone',
    field: 'timestamp',
    corrupt: (s) => (s.timestamp = '2026-11-28T09:15:31'),
  },
  { name: 'timestamp negative', field: 'timestamp', corrupt: (s) => (s.timestamp = -5) },
  { name: 'timestamp a boolean', field: 'timestamp', corrupt: (s) => (s.timestamp = true) },
  { name: 'query too long', field: 'params.query', corrupt: (s) => (params(s).query = 'q'.repeat(1001)) },
  { name: 'own param too long', field: 'params.note', corrupt: (s) => (params(s).note = 'n'.repeat(1001)) },
  {
    name: 'user_id too long',
    field: 'params.user_id',
    corrupt: (s) => (params(s).user_id = 'u'.repeat(257)),
  },
  { name: 'position as text', field: 'params.position', corrupt: (s) => (params(s).position = '3') },
  { name: 'price negative', field: 'params.price', corrupt: (s) => (params(s).price = -1) },
  { name: 'quantity a fraction', field: 'params.quantity', corrupt: (s) => (params(s).quantity = 1.5) },
  { name: 'own param an object', field: 'params.note', corrupt: (s) => (params(s).note = { a: 1 }) },
  { name: 'params missing', field: 'params', corrupt: (s) => delete s.params },
  { name: 'an unknown member', field: 'extra', corrupt: (s) => (s.extra = 1) },
  { name: 'id empty', field: 'id', corrupt: (s) => (s.id = '') },
];

function params(signal: Record<string, unknown>): Record<string, unknown> {
  return signal.params as Record<string, unknown>;
}

const validSignal = fc.record({
  id: fc.option(fc.uuid(), { nil: undefined }),
  type: fc.constantFrom('click', 'cart', 'purchase', 'wishlist'),
  timestamp: fc.option(
    fc.oneof(
      fc.integer({ min: 1_700_000_000_000, max: 1_800_000_000_000 }),
      fc.integer({ min: 1_700_000_000_000, max: 1_800_000_000_000 }).map((ms) => new Date(ms).toISOString()),
    ),
    { nil: undefined },
  ),
  params: fc.record({
    query: fc.string({ maxLength: 20 }),
    docId: fc.stringMatching(/^P[0-9]{1,3}$/),
    user_id: fc.stringMatching(/^u[0-9]{1,3}$/),
  }),
});

for (const engine of engines) {
  describe(`Bad signals on ${engine}`, { skip: await skipReason(engine) }, () => {
    const contract = contractTest(engine);

    contract(
      'any bad signal in a batch is a 400 naming its index and field, and nothing is stored',
      async (t) => {
        const { app, store } = await build(t, engine);
        await fc.assert(
          fc.asyncProperty(
            fc.array(validSignal, { minLength: 1, maxLength: 12 }),
            fc.nat(),
            fc.constantFrom(...CORRUPTIONS),
            async (signals, at, corruption) => {
              const batch = signals.map((signal) => structuredClone(JSON.parse(JSON.stringify(signal))));
              const index = at % batch.length;
              corruption.corrupt(batch[index]);
              const answer = await postSignals(app, batch, { authorization: adminAuth });
              assert.equal(answer.status, 400, `${corruption.name}: ${JSON.stringify(answer.body)}`);
              assert.equal(answer.body.code, 'invalid-body');
              const fields = answer.body.errors.map((e: { field: string }) => e.field);
              assert.ok(fields.includes(`[${index}].${corruption.field}`), `${corruption.name}: ${fields}`);
              assert.equal((await storedSignals(store.db)).length, 0);
            },
          ),
          { numRuns: 60 },
        );
      },
    );

    test('more than 1,000 signals, none, or no array are refused and nothing is stored', async (t) => {
      const { app, store } = await build(t, engine);
      const one = { type: 'click', params: { docId: 'P1' } };
      const tooMany = await postSignals(
        app,
        Array.from({ length: 1001 }, () => one),
        { authorization: adminAuth },
      );
      assert.equal(tooMany.status, 400);
      assert.match(tooMany.body.message, /at most 1000/);
      assert.equal((await postSignals(app, [], { authorization: adminAuth })).status, 400);
      assert.equal((await postSignals(app, one, { authorization: adminAuth })).status, 400);
      // The last signal of a full batch bad: none of the 999 before it is stored either.
      const full = Array.from({ length: 1000 }, (_, i) => ({ ...one, id: `s${i}` }));
      full[999] = { ...one, timestamp: 'soon' } as never;
      const refused = await postSignals(app, full, { authorization: adminAuth });
      assert.equal(refused.status, 400);
      assert.deepEqual(
        refused.body.errors.map((e: { field: string }) => e.field),
        ['[999].timestamp'],
      );
      assert.equal((await storedSignals(store.db)).length, 0);
      const accepted = await postSignals(app, full.slice(0, 999), { authorization: adminAuth });
      assert.deepEqual(accepted.body, { accepted: 999 });
      assert.equal((await storedSignals(store.db)).length, 999);
    });
  });
}
