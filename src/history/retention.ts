import { randomUUID } from 'node:crypto';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { Cron } from 'croner';
import type { FastifyBaseLogger } from 'fastify';
import type { JobMetrics } from '../jobs/job-metrics.js';
import type { Store } from '../storage/database.js';
import { releaseLease, tryAcquireLease } from '../storage/lease-repository.js';
import { pruneHistory } from './service.js';

const JOB = 'history-retention';
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
  readonly nodeId = randomUUID();
  readonly #options: HistoryRetentionOptions;
  #cron: Cron | undefined;

  constructor(options: HistoryRetentionOptions) {
    this.#options = options;
  }

  start(): void {
    this.#cron = new Cron(
      this.#options.schedule ?? '23 * * * *',
      { protect: true, unref: true },
      async () => {
        await this.runScheduledJob().catch((error) =>
          this.#options.log.error({ err: error }, 'history retention job failed'),
        );
      },
    );
  }

  stop(): void {
    this.#cron?.stop();
  }

  /** One run; false when another node holds the lease. */
  runScheduledJob(): Promise<boolean> {
    return this.#options.jobs.run(JOB, () => this.#runOnLease());
  }

  async #runOnLease(): Promise<boolean> {
    const { store, jobs, log, retentionDays } = this.#options;
    const now = this.#options.now();
    const until = new Date(now.getTime() + JOB_LEASE_MS);
    if (!(await tryAcquireLease(store.db, JOB, this.nodeId, now, until))) {
      jobs.leaseLost(JOB);
      return false;
    }
    jobs.leaseTaken(JOB, until);
    try {
      const pruned = await pruneHistory(store.db, retentionDays, now, yieldToEventLoop);
      if (pruned > 0) log.info({ pruned, retentionDays }, 'history events past the retention pruned');
    } catch (error) {
      await releaseLease(store.db, JOB, this.nodeId);
      jobs.leaseLost(JOB);
      throw error;
    }
    return true;
  }
}
