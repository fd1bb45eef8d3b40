import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { JobMetrics } from '../jobs/job-metrics.js';
import { ScheduledJob } from '../jobs/scheduled-job.js';
import type { Store } from '../storage/database.js';
import { pruneHistory } from './service.js';

// Held after a run, so the other nodes firing at the same time find it taken; it lapses
// well before the next run.
const JOB_LEASE_MS = 50 * 60_000;

export interface HistoryRetentionOptions {
  readonly store: Store;
  readonly jobs: JobMetrics;
  readonly log: FastifyBaseLogger;
  readonly now: () => Date;
  readonly retentionDays: number;
  /** Cron pattern (default: every hour at minute 23). */
  readonly schedule?: string;
}

/** Prunes history events past the retention, every hour, on the one node that takes the lease. */
export class HistoryRetention {
  readonly #job: ScheduledJob;

  constructor(options: HistoryRetentionOptions) {
    const { store, log, retentionDays } = options;
    this.#job = new ScheduledJob({
      name: 'history-retention',
      schedule: options.schedule ?? '23 * * * *',
      leaseMs: JOB_LEASE_MS,
      store,
      jobs: options.jobs,
      log,
      now: options.now,
      failureMessage: 'history retention job failed',
      work: async (now) => {
        const pruned = await pruneHistory(store.db, retentionDays, now, yieldToEventLoop);
        if (pruned > 0) log.info({ pruned, retentionDays }, 'history events past the retention pruned');
      },
    });
  }

  start(): void {
    this.#job.start();
  }

  /** Resolves once a run under way is done. */
  stop(): Promise<void> {
    return this.#job.stop();
  }

  /** One run; false when another node holds the lease. */
  runScheduledJob(): Promise<boolean> {
    return this.#job.runOnLease();
  }
}
