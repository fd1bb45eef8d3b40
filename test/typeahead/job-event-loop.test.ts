import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/storage/schema.js';
import { addSearches, type CountDelta, type FormDelta } from '../../src/typeahead/search-log-repository.js';
import { build, engines, skipReason } from '../helpers/app.js';
import { longestStall } from '../helpers/event-loop.js';
import { admin, createInstance } from './helpers.js';

const NOW = new Date('2026-11-21T10:30:00.000Z');
const KEYS = 100_000;
const HOURS = ['2026-11-21T08', '2026-11-21T09', '2026-11-21T10'];

/** The log, written in slices so that the seeding itself leaves little garbage behind. */
async function seed(db: Kysely<Database>, id: string): Promise<void> {
  for (let from = 0; from < KEYS; from += 10_000) {
    const counts: CountDelta[] = [];
    const forms: FormDelta[] = [];
    for (let k = from; k < from + 10_000; k++) {
      const key = `query ${k.toString(36)}`;
      for (const hour of HOURS) counts.push({ key, hour, count: 1 + (k % 13) });
      forms.push({ key, form: key, count: 1, lastHour: HOURS[2]! });
    }
    await db.transaction().execute((trx) => addSearches(trx, id, counts, forms));
  }
}

for (const engine of engines) {
  describe(`The top-searched job on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('never holds the event loop for 50 ms while it aggregates a large log', async (t) => {
      const { app, store } = await build(t, engine, { now: () => NOW });
      const { id } = await createInstance(app, { minCount: 2 });
      await seed(store.db, id);

      const stall = await longestStall(t, 50, async () => {
        const refreshed = await admin(app, 'POST', `/instances/${id}/refresh`);
        assert.equal(refreshed.status, 200);
        assert.equal(refreshed.body.topSearched, 1000);
      });
      assert.ok(stall < 50, `the event loop was held for ${stall.toFixed(1)} ms`);
    });
  });
}
