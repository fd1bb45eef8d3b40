// Raw signals are kept for a number of days (SEARCHDECK_SIGNALS_RETENTION_DAYS, 30 by default),
// then pruned by an hourly job on the one node that takes its lease.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { AppContext } from '../http/area.js';
import { ScheduledJob } from '../jobs/scheduled-job.js';
import type { Database } from '../storage/schema.js';
import { deleteOlderThan } from './repository.js';

const DAY_MS = 86_400_000;
// Held after a run, so the other nodes firing at the same time find it taken; it lapses well
// before the next run.
const JOB_LEASE_MS = 50 * 60_000;
// Rows deleted per statement: a short hold of the table each time, the loop yielding between.
const PRUNE_BATCH = 5000;

/** Deletes the response signals and posted signals older than the retention; how many of each. */
export async function pruneSignals(
  db: Kysely<Database>,
  retentionDays: number,
  now: Date,
  between: () => Promise<void> = async () => {},
): Promise<{ searchSignals: number; signals: number }> {
  const before = now.getTime() - retentionDays * DAY_MS;
  const pruned = { searchSignals: 0, signals: 0 };
  for (const [table, counter] of [
    ['search_signal', 'searchSignals'],
    ['signal', 'signals'],
  ] as const) {
    for (;;) {
      const deleted = await deleteOlderThan(db, table, before, PRUNE_BATCH);
      pruned[counter] += deleted;
      if (deleted < PRUNE_BATCH) break;
      await between();
    }
  }
  return pruned;
}

/** The hourly pruning job of the raw signals (at minute 41). */
export function signalsRetentionJob(ctx: AppContext, schedule = '41 * * * *'): ScheduledJob {
  const retentionDays = ctx.config.signalsRetentionDays;
  return new ScheduledJob({
    name: 'signals-retention',
    schedule,
    leaseMs: JOB_LEASE_MS,
    store: ctx.store,
    jobs: ctx.jobs,
    log: ctx.log,
    now: ctx.now,
    failureMessage: 'signals retention job failed',
    work: async (now) => {
      const pruned = await pruneSignals(ctx.store.db, retentionDays, now, yieldToEventLoop);
      if (pruned.searchSignals + pruned.signals > 0)
        ctx.log.info({ ...pruned, retentionDays }, 'signals past the retention pruned');
    },
  });
}
