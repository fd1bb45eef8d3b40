import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { MAX_CONFLICTS_PER_RULE } from '../../src/rules/page-conflicts.js';
import { build } from '../helpers/app.js';
import { cpuMs, machineFactor } from '../helpers/event-loop.js';
import { studioWithToken } from './api.js';
import { content, minimalBodies } from './fixtures.js';
import { seedRules } from './seed.js';

const RULES = 5_000;

/** Rules that all act on the same few documents for every query: each conflicts with thousands. */
function clashingContents() {
  return Array.from({ length: RULES }, (_, i) => {
    const value = `P${i % 3}`;
    switch (i % 3) {
      case 0:
        return content({ ...minimalBodies.blockList, name: `Block ${i}`, fieldValues: [value, 'P1'] });
      case 1:
        return content({ ...minimalBodies.boostList, name: `Boost ${i}`, fieldValues: [value, 'P2'] });
      default:
        return content({ ...minimalBodies.pinned, name: `Pin ${i}`, pinnedValues: [{ value, position: 1 }] });
    }
  });
}

/**
 * The slowest of the health checks sent every 10 ms until `work` ends, in ms of the reference
 * machine (`machineFactor`, test/helpers/event-loop.ts). A check counts
 * only as long as the process used the CPU meanwhile: a listing holding the loop burns CPU for
 * all of its length, while a process the busy machine has descheduled burns none, however long
 * it waits (as in `longestStall`, test/helpers/event-loop.ts).
 */
async function slowestHealthCheck(base: string, work: Promise<unknown>): Promise<number> {
  let done = false;
  void work.finally(() => {
    done = true;
  });
  let slowest = 0;
  while (!done) {
    const started = performance.now();
    const startedCpu = cpuMs();
    const response = await fetch(`${base}/health`);
    assert.equal(response.status, 200);
    await response.arrayBuffer();
    slowest = Math.max(slowest, Math.min(performance.now() - started, cpuMs() - startedCpu));
    // A fixed pace on purpose: the probe samples the event loop every 10 ms while the work runs.
    await sleep(10);
  }
  return slowest / (await machineFactor());
}

describe('the rules listing on sqlite', () => {
  test('answers /health within 100 ms while a CONFLICTS listing of 5,000 rules and a 500-word search run', async (t) => {
    const { app, store } = await build(t, 'sqlite');
    const access = await studioWithToken(app, 'shop');
    await seedRules(store.db, 'shop', clashingContents());
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const get = (query: string) => fetch(`${base}/em-rules?${query}`, { headers: access.headers });
    const words = Array.from({ length: 500 }, (_, i) => `w${i}`).join(' ');

    // A shared machine can pause the whole process now and then; a listing that holds the
    // loop would show in every run, so the best of three counts.
    const runs: number[] = [];
    for (let run = 0; run < 3 && !(runs.length > 0 && Math.min(...runs) < 100); run++) {
      const started = performance.now();
      const listing = Promise.all([
        get('size=1000&fields=CONFLICTS').then(async (response) => ({
          status: response.status,
          text: await response.text(),
        })),
        get(`searchQuery=${encodeURIComponent(words)}`).then((response) => response.status),
      ]);
      const slowest = await slowestHealthCheck(base, listing);
      const [conflicts, search] = await listing;
      assert.equal(conflicts.status, 200);
      assert.equal(search, 400);
      const content = JSON.parse(conflicts.text).content as Array<{ conflicts: unknown[] }>;
      assert.equal(content.length, 1000);
      for (const rule of content) assert.ok(rule.conflicts.length <= MAX_CONFLICTS_PER_RULE);
      assert.ok(conflicts.text.length < 5_000_000, `${conflicts.text.length} characters`);
      runs.push(slowest);
      t.diagnostic(
        `listing ${((performance.now() - started) / 1000).toFixed(2)} s, ${(conflicts.text.length / 1e6).toFixed(1)} MB; slowest /health ${slowest.toFixed(1)} ms of the reference machine`,
      );
    }
    const best = Math.min(...runs);
    assert.ok(best < 100, `/health took ${best.toFixed(1)} ms`);
  });
});
