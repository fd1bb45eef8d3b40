import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, test } from 'node:test';
import { addSearches, type CountDelta, type FormDelta } from '../../src/typeahead/repository.js';
import { build, engines, skipReason } from '../helpers/app.js';
import { admin, createInstance } from './helpers.js';

const NOW = new Date('2026-11-21T10:30:00.000Z');
const KEYS = 100_000;
const HOURS = ['2026-11-21T08', '2026-11-21T09', '2026-11-21T10'];

for (const engine of engines) {
  describe(`The top-searched job on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('never holds the event loop for 50 ms while it aggregates a large log', async (t) => {
      const { app, store } = await build(t, engine, { now: () => NOW });
      const { id } = await createInstance(app, { minCount: 2 });
      const counts: CountDelta[] = [];
      const forms: FormDelta[] = [];
      for (let k = 0; k < KEYS; k++) {
        const key = `query ${k.toString(36)}`;
        for (const hour of HOURS) counts.push({ key, hour, count: 1 + (k % 13) });
        forms.push({ key, form: key, count: 1, lastHour: HOURS[2]! });
      }
      await store.db.transaction().execute((trx) => addSearches(trx, id, counts, forms));

      const delay = monitorEventLoopDelay({ resolution: 5 });
      delay.enable();
      const started = performance.now();
      const refreshed = await admin(app, 'POST', `/instances/${id}/refresh`);
      const seconds = (performance.now() - started) / 1000;
      delay.disable();
      assert.equal(refreshed.status, 200);
      assert.equal(refreshed.body.topSearched, 1000);
      const maxMs = delay.max / 1e6;
      t.diagnostic(
        `${KEYS} keys, ${counts.length} buckets: ${seconds.toFixed(2)} s, longest event-loop delay ${maxMs.toFixed(1)} ms`,
      );
      assert.ok(maxMs < 50, `the event loop was held for ${maxMs.toFixed(1)} ms`);
    });
  });
}
