import type { FastifyBaseLogger } from 'fastify';
import { Counter, type Registry } from 'prom-client';
import type { JobMetrics } from '../jobs/job-metrics.js';
import { ScheduledJob } from '../jobs/scheduled-job.js';
import type { ChangeFeed } from '../storage/change-feed.js';
import type { Store } from '../storage/database.js';
import { selectVersions } from './repository.js';
import { refreshTopSearched } from './top-searched-job.js';

// Held, not released, after a successful run: the other nodes firing in the same hour
// find it taken; it lapses before the next hour's run.
const JOB_LEASE_MS = 50 * 60_000;

export interface TopSearchedScheduleOptions {
  readonly store: Store;
  readonly feed: ChangeFeed;
  readonly metrics: Registry;
  readonly jobs: JobMetrics;
  readonly log: FastifyBaseLogger;
  readonly now: () => Date;
  /** Cron pattern (default: every hour on the hour). */
  readonly schedule?: string;
}

/**
 * When the top-searched sets are recomputed: every instance's each hour, on the one node
 * that takes the hour's lease, and one instance's whenever it is asked for.
 */
export class TopSearchedSchedule {
  readonly #options: TopSearchedScheduleOptions;
  readonly #job: ScheduledJob;
  readonly #runs: Counter<'trigger'>;
  #stopped = false;

  constructor(options: TopSearchedScheduleOptions) {
    this.#options = options;
    this.#runs = new Counter({
      name: 'searchdeck_typeahead_job_runs_total',
      help: 'Runs of the top-searched job, by trigger (schedule or request)',
      labelNames: ['trigger'] as const,
      registers: [options.metrics],
    });
    this.#job = new ScheduledJob({
      name: 'typeahead-top-searched',
      schedule: options.schedule ?? '0 * * * *',
      leaseMs: JOB_LEASE_MS,
      store: options.store,
      jobs: options.jobs,
      log: options.log,
      now: options.now,
      failureMessage: 'top-searched job failed',
      work: (now) => this.#refreshAll(now),
    });
  }

  start(): void {
    this.#job.start();
  }

  /** Resolves once a run under way is done. */
  stop(): Promise<void> {
    this.#stopped = true;
    return this.#job.stop();
  }

  /** Recomputes one instance's top-searched set now (no lease: it is idempotent). */
  async runNow(id: string): Promise<void> {
    const { store, feed, now } = this.#options;
    await refreshTopSearched(store, feed, id, now());
    this.#runs.inc({ trigger: 'request' });
    await feed.changed();
  }

  /** The hourly run over every instance, on the one node that takes the lease. False when another has it. */
  runScheduledJob(): Promise<boolean> {
    return this.#job.runOnLease();
  }

  async #refreshAll(now: Date): Promise<void> {
    const { store, feed, log } = this.#options;
    this.#runs.inc({ trigger: 'schedule' });
    for (const { id } of await selectVersions(store.db)) {
      if (this.#stopped) break;
      // One instance's failure is logged and does not stop the others, nor give the lease up.
      await refreshTopSearched(store, feed, id, now).catch((error) =>
        log.error({ err: error, instance: id }, 'top-searched job failed for an instance'),
      );
    }
    await feed.changed();
  }
}
