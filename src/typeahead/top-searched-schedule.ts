import { randomUUID } from 'node:crypto';
import { Cron } from 'croner';
import type { FastifyBaseLogger } from 'fastify';
import { Counter, type Registry } from 'prom-client';
import type { JobMetrics } from '../jobs/job-metrics.js';
import type { ChangeFeed } from '../storage/change-feed.js';
import type { Store } from '../storage/database.js';
import { releaseLease, tryAcquireLease } from '../storage/lease-repository.js';
import { selectVersions } from './repository.js';
import { refreshTopSearched } from './top-searched-job.js';

const JOB_LEASE = 'typeahead-top-searched';
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
  readonly nodeId = randomUUID();
  readonly #options: TopSearchedScheduleOptions;
  readonly #runs: Counter<'trigger'>;
  #stopped = false;
  #cron: Cron | undefined;

  constructor(options: TopSearchedScheduleOptions) {
    this.#options = options;
    this.#runs = new Counter({
      name: 'searchdeck_typeahead_job_runs_total',
      help: 'Runs of the top-searched job, by trigger (schedule or request)',
      labelNames: ['trigger'] as const,
      registers: [options.metrics],
    });
  }

  start(): void {
    this.#cron = new Cron(this.#options.schedule ?? '0 * * * *', { protect: true, unref: true }, async () => {
      await this.runScheduledJob().catch((error) =>
        this.#options.log.error({ err: error }, 'top-searched job failed'),
      );
    });
  }

  stop(): void {
    this.#stopped = true;
    this.#cron?.stop();
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
    return this.#options.jobs.run(JOB_LEASE, () => this.#runOnLease());
  }

  async #runOnLease(): Promise<boolean> {
    const { store, feed, log, jobs } = this.#options;
    const db = store.db;
    const now = this.#options.now();
    const until = new Date(now.getTime() + JOB_LEASE_MS);
    if (!(await tryAcquireLease(db, JOB_LEASE, this.nodeId, now, until))) {
      jobs.leaseLost(JOB_LEASE);
      return false;
    }
    jobs.leaseTaken(JOB_LEASE, until);
    this.#runs.inc({ trigger: 'schedule' });
    try {
      for (const { id } of await selectVersions(db)) {
        if (this.#stopped) break;
        await refreshTopSearched(store, feed, id, now).catch((error) =>
          log.error({ err: error, instance: id }, 'top-searched job failed for an instance'),
        );
      }
    } catch (error) {
      await releaseLease(db, JOB_LEASE, this.nodeId);
      jobs.leaseLost(JOB_LEASE);
      throw error;
    }
    await feed.changed();
    return true;
  }
}
