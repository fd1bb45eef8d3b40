import assert from 'node:assert/strict';
import { describe, type TestContext, test } from 'node:test';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { JobMetrics } from '../../src/jobs/job-metrics.js';
import { ScheduledJob, type ScheduledJobOptions } from '../../src/jobs/scheduled-job.js';
import type { Engine, Store } from '../../src/storage/database.js';
import { engines, freshStore, skipReason } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';
import { captureLog } from '../helpers/log-capture.js';
import { parseExposition, sampleValue } from '../operations/exposition.js';

const now = () => new Date('2026-06-01T10:00:00.000Z');
const job = { job: 'nightly' };

interface Node {
  scheduler: ScheduledJob;
  registry: Registry;
  /** The lines this node logged. */
  lines: string[];
}

/** One node's scheduler of the job `nightly`, with its own metrics and log, on `store`. */
function node(store: Store, work: ScheduledJobOptions['work'], schedule = '0 3 * * *'): Node {
  const registry = new Registry();
  const log = captureLog('info');
  const scheduler = new ScheduledJob({
    name: job.job,
    schedule,
    leaseMs: 60 * 60_000,
    store,
    jobs: new JobMetrics(registry, now),
    log: pino({ level: 'info' }, log.logger.stream),
    now,
    failureMessage: 'nightly job failed',
    work,
  });
  return { scheduler, registry, lines: log.lines };
}

/** Two nodes of one fresh database, each with its own connection; stopped and closed after the test. */
async function twoNodes(
  t: TestContext,
  engine: Engine,
  work: ScheduledJobOptions['work'],
  schedule?: string,
): Promise<[Node, Node]> {
  const fresh = await freshStore(engine);
  const nodes: [Node, Node] = [node(fresh.store, work, schedule), node(fresh.openAnother(), work, schedule)];
  t.after(async () => {
    for (const { scheduler } of nodes) await scheduler.stop();
    await fresh.close();
  });
  return nodes;
}

async function samples(of: Node) {
  return parseExposition(await of.registry.metrics());
}

for (const engine of engines) {
  describe(`A scheduled job on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('runs on the one node that takes the lease, which it keeps after the run', async (t) => {
      const runs: Date[] = [];
      const [one, two] = await twoNodes(t, engine, async (at) => {
        runs.push(at);
      });
      const ran = await Promise.all([one.scheduler.runOnLease(), two.scheduler.runOnLease()]);
      assert.equal(ran.filter(Boolean).length, 1, `exactly one node runs the job (${ran.join(', ')})`);
      assert.deepEqual(runs, [now()]);
      const [winner, loser] = ran[0] ? [one, two] : [two, one];
      assert.equal(
        await loser.scheduler.runOnLease(),
        false,
        'the lease holds after a run that did its work',
      );
      assert.equal(await winner.scheduler.runOnLease(), true, 'its holder may run again');
      assert.equal(runs.length, 2);

      const won = await samples(winner);
      assert.equal(sampleValue(won, 'searchdeck_job_runs_total', { ...job, outcome: 'ok' }), 2);
      assert.equal(sampleValue(won, 'searchdeck_job_lease_held', job), 1);
      const lost = await samples(loser);
      assert.equal(sampleValue(lost, 'searchdeck_job_runs_total', { ...job, outcome: 'skipped' }), 2);
      assert.equal(sampleValue(lost, 'searchdeck_job_duration_seconds_count', job), 0);
      assert.equal(sampleValue(lost, 'searchdeck_job_lease_held', job), 0);
    });

    test('gives the lease up when a run throws, so another node may run at once', async (t) => {
      let failing = true;
      const [one, two] = await twoNodes(t, engine, async () => {
        if (failing) throw new Error('boom');
      });
      await assert.rejects(one.scheduler.runOnLease(), /boom/);
      const failed = await samples(one);
      assert.equal(sampleValue(failed, 'searchdeck_job_runs_total', { ...job, outcome: 'failed' }), 1);
      assert.equal(sampleValue(failed, 'searchdeck_job_duration_seconds_count', job), 1);
      assert.equal(sampleValue(failed, 'searchdeck_job_lease_held', job), 0);

      failing = false;
      assert.equal(await two.scheduler.runOnLease(), true);
      assert.equal(sampleValue(await samples(two), 'searchdeck_job_lease_held', job), 1);
    });

    test('runs on its schedule, logs a failed run, and stops when told', async (t) => {
      const [one] = await twoNodes(
        t,
        engine,
        async () => {
          throw new Error('boom');
        },
        '* * * * * *',
      );
      assert.equal(one.scheduler.nextRun(), undefined, 'nothing is scheduled before start()');
      one.scheduler.start();
      assert.ok(one.scheduler.nextRun(), 'a run is due once started');
      const line = await eventually(
        () =>
          one.lines.map((text) => JSON.parse(text)).find((entry) => entry.msg === 'nightly job failed') ??
          false,
        { message: 'no scheduled run failed within the time' },
      );
      assert.equal(line.level, 50);
      assert.equal(line.err.message, 'boom');
      assert.ok(
        sampleValue(await samples(one), 'searchdeck_job_runs_total', { ...job, outcome: 'failed' }) >= 1,
      );

      await one.scheduler.stop();
      assert.equal(one.scheduler.nextRun(), undefined, 'no run is due after stop()');
    });

    test('stop() waits for the run under way, so the store is closed after it, not under it', async (t) => {
      let finish: () => void = () => {};
      let started: () => void = () => {};
      const running = new Promise<void>((resolve) => (started = resolve));
      const [one] = await twoNodes(t, engine, async () => {
        started();
        await new Promise<void>((resolve) => (finish = resolve));
      });
      const run = one.scheduler.runOnLease();
      await running;
      let stopped = false;
      const stopping = one.scheduler.stop().then(() => (stopped = true));
      // The stop waits on the run, whatever else the event loop does meanwhile.
      await new Promise<void>((resolve) => setImmediate(resolve));
      assert.equal(stopped, false, 'stop() resolved while the run was still under way');
      finish();
      assert.equal(await run, true);
      await stopping;
      assert.equal(stopped, true);
    });
  });
}
