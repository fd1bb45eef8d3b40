import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/storage/schema.js';
import { addSearches, type CountDelta, type FormDelta } from '../../src/typeahead/repository.js';
import { build, engines, skipReason } from '../helpers/app.js';
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

      // A shared machine can deschedule the whole process now and then, which looks like a
      // long delay too; blocking by the job would show in every run, so the best of three
      // counts, and a run counts as clean when the loop, idle for as long, was as slow.
      const runs: number[] = [];
      for (let run = 0; run < 3 && !(runs.length > 0 && Math.min(...runs) < 50); run++) {
        const idle = monitorEventLoopDelay({ resolution: 5 });
        idle.enable();
        await sleep(500);
        idle.disable();
        const noiseMs = idle.max / 1e6;
        const delay = monitorEventLoopDelay({ resolution: 5 });
        delay.enable();
        const started = performance.now();
        const refreshed = await admin(app, 'POST', `/instances/${id}/refresh`);
        const seconds = (performance.now() - started) / 1000;
        delay.disable();
        assert.equal(refreshed.status, 200);
        assert.equal(refreshed.body.topSearched, 1000);
        runs.push(Math.max(0, delay.max / 1e6 - Math.max(0, noiseMs - 20)));
        t.diagnostic(
          `${KEYS} keys, ${KEYS * HOURS.length} buckets: ${seconds.toFixed(2)} s, longest event-loop delay ${(delay.max / 1e6).toFixed(1)} ms (idle loop ${noiseMs.toFixed(1)} ms)`,
        );
      }
      const best = Math.min(...runs);
      assert.ok(best < 50, `the event loop was held for ${best.toFixed(1)} ms`);
    });
  });
}
