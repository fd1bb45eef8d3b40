// What every background job reports, whichever area runs it: its runs by outcome, how
// long they take, and whether this node holds the job's lease (so a dashboard shows which
// node runs the job, and that exactly one does).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** ok: the run did its work; failed: it threw; skipped: another node holds the lease. */
export type JobOutcome = 'ok' | 'failed' | 'skipped';

const DURATION_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900];

/** The job metrics of one app, built once in buildApp and shared by every job. */
export class JobMetrics {
  readonly #runs: Counter<'job' | 'outcome'>;
  readonly #duration: Histogram<'job'>;
  /** Until when (epoch ms) this node holds each job's lease. */
  readonly #leases = new Map<string, number>();

  constructor(registry: Registry, now: () => Date) {
    const registers = [registry];
    this.#runs = new Counter({
      name: 'searchdeck_job_runs_total',
      help: 'Runs of background jobs by job and outcome (ok, failed, skipped: another node holds the lease)',
      labelNames: ['job', 'outcome'] as const,
      registers,
    });
    this.#duration = new Histogram({
      name: 'searchdeck_job_duration_seconds',
      help: 'Duration of the background job runs that did their work or failed',
      labelNames: ['job'] as const,
      buckets: DURATION_BUCKETS,
      registers,
    });
    const leases = this.#leases;
    new Gauge({
      name: 'searchdeck_job_lease_held',
      help: "1 while this node holds the job's lease, 0 otherwise",
      labelNames: ['job'] as const,
      registers,
      collect() {
        const at = now().getTime();
        for (const [job, until] of leases) this.set({ job }, until > at ? 1 : 0);
      },
    });
  }

  /**
   * Runs one run of `job`, timed and counted: `work` answers false when it did not run
   * because another node holds the lease.
   */
  async run(job: string, work: () => Promise<boolean>): Promise<boolean> {
    const stop = this.#duration.startTimer({ job });
    let outcome: JobOutcome = 'failed';
    try {
      const ran = await work();
      outcome = ran ? 'ok' : 'skipped';
      return ran;
    } finally {
      if (outcome !== 'skipped') stop();
      this.#runs.inc({ job, outcome });
    }
  }

  /** This node took the job's lease until `until`. */
  leaseTaken(job: string, until: Date): void {
    this.#leases.set(job, until.getTime());
  }

  /** This node gave the lease up, or found it held by another. */
  leaseLost(job: string): void {
    this.#leases.set(job, 0);
  }
}
