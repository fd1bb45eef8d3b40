// The one way a background job runs on a schedule: croner fires it on every node, and the
// database lease lets exactly one node do the work each time. The job brings only its work.
import { randomUUID } from 'node:crypto';
import { Cron } from 'croner';
import type { FastifyBaseLogger } from 'fastify';
import type { Store } from '../storage/database.js';
import { releaseLease, tryAcquireLease } from '../storage/lease-repository.js';
import type { JobMetrics } from './job-metrics.js';

export interface ScheduledJobOptions {
  /** The job's name: its lease's name and the `job` label of its metrics. */
  readonly name: string;
  /** Cron pattern of its runs. */
  readonly schedule: string;
  /**
   * How long a run holds the lease. It is kept after a run that did its work, so the other
   * nodes firing at the same time find it taken: shorter than the time between two runs.
   */
  readonly leaseMs: number;
  readonly store: Store;
  readonly jobs: JobMetrics;
  readonly log: FastifyBaseLogger;
  readonly now: () => Date;
  /** The error log line of a scheduled run that threw. */
  readonly failureMessage: string;
  /** One run's work, at `now` (the time the lease was taken at). */
  readonly work: (now: Date) => Promise<void>;
}

/** A job run on its schedule by the one node that takes its lease; counted in JobMetrics. */
export class ScheduledJob {
  /** This node, as the holder of the lease. */
  readonly nodeId = randomUUID();
  readonly #options: ScheduledJobOptions;
  #cron: Cron | undefined;
  /** Runs under way, scheduled or asked for: stop() waits for them before the store closes. */
  readonly #running = new Set<Promise<boolean>>();

  constructor(options: ScheduledJobOptions) {
    this.#options = options;
  }

  /** Fires the job on its schedule; a run still going when the next one is due skips that one. */
  start(): void {
    const { schedule, log, failureMessage } = this.#options;
    this.#cron = new Cron(schedule, { protect: true, unref: true }, async () => {
      await this.runOnLease().catch((error) => log.error({ err: error }, failureMessage));
    });
  }

  /**
   * No more scheduled runs; resolves once the runs under way are done, so that the store they
   * write to is closed after them, not under them.
   */
  async stop(): Promise<void> {
    this.#cron?.stop();
    await Promise.allSettled([...this.#running]);
  }

  /** When the next scheduled run is due; undefined before start() and after stop(). */
  nextRun(): Date | undefined {
    return this.#cron?.nextRun() ?? undefined;
  }

  /** One run now, if this node takes the lease; false when another node holds it. */
  runOnLease(): Promise<boolean> {
    const run = this.#options.jobs.run(this.#options.name, () => this.#workOnLease());
    this.#running.add(run);
    void run.then(
      () => this.#running.delete(run),
      () => this.#running.delete(run),
    );
    return run;
  }

  async #workOnLease(): Promise<boolean> {
    const { name, leaseMs, store, jobs, work } = this.#options;
    const now = this.#options.now();
    const until = new Date(now.getTime() + leaseMs);
    if (!(await tryAcquireLease(store.db, name, this.nodeId, now, until))) {
      jobs.leaseLost(name);
      return false;
    }
    jobs.leaseTaken(name, until);
    try {
      await work(now);
    } catch (error) {
      // Given up, so another node may retry at once instead of after the lease lapses.
      await releaseLease(store.db, name, this.nodeId);
      jobs.leaseLost(name);
      throw error;
    }
    return true;
  }
}
