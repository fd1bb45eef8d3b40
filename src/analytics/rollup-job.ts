// When the rollups are made: every few seconds, on the one node that takes the lease, the
// hours whose raw rows changed are rolled again; once an hour, rollups past their retention go.
import type { FastifyBaseLogger } from 'fastify';
import { Counter, type Registry } from 'prom-client';
import type { JobMetrics } from '../jobs/job-metrics.js';
import { ScheduledJob } from '../jobs/scheduled-job.js';
import type { Store } from '../storage/database.js';
import { hourOf, rollHour } from './rollup.js';
import {
  clearDirtyHour,
  DAY_MS,
  HOUR_MS,
  type ProfileHour,
  pruneRollups,
  saveState,
  selectDirtyHours,
  selectHoursOfSignalsReceived,
  selectRawHourCounts,
  selectRolledHourCounts,
  selectState,
} from './rollup-repository.js';

/** How often the roll runs: a signal counts in the answers within 10 s of its acknowledgement. */
export const ROLLUP_SCHEDULE = '*/5 * * * * *';
/** The job's name: its lease's, so that one node of several rolls. */
export const ROLLUP_JOB = 'analytics-rollup';
// Held after a run, so the nodes firing at the same second find it taken; it lapses before the next.
const JOB_LEASE_MS = 4000;
/** Signals received this long before the last run's start are read again (commit delays, clocks). */
export const RECEIVED_SLACK_MS = 60_000;
/** How far back each run compares raw and rolled search counts; once an hour, further. */
export const NARROW_LOOKBACK_MS = 3 * HOUR_MS;
export const WIDE_LOOKBACK_MS = 48 * HOUR_MS;
/** Raw signals kept by default (the signals write side prunes them); older hours are never rolled again. */
export const RAW_RETENTION_DAYS = 30;
const WATERMARK = 'signals_received';
/**
 * A scheduled run rolls an hour again only once this many times the length of its last roll
 * has passed since that roll ended, so rolling takes at most a fifth of the node's time: each
 * roll reads the hour's raw rows afresh, and a busy hour (hundreds of searches a second) takes
 * seconds. A small shop's hours roll in milliseconds and are never held back.
 */
export const PACE = 4;

export interface AnalyticsRollupOptions {
  readonly store: Store;
  readonly metrics: Registry;
  readonly jobs: JobMetrics;
  readonly log: FastifyBaseLogger;
  readonly now: () => Date;
  /** Days hourly and daily rollups are kept. */
  readonly retentionDays: number;
  /** Days the raw rows are kept: an hour older than that is never rolled again from them. */
  readonly rawRetentionDays?: number;
  /** Cron pattern (default ROLLUP_SCHEDULE). */
  readonly schedule?: string;
  /** Milliseconds of a clock that only goes forward, for the pace (default performance.now). */
  readonly monotonic?: () => number;
}

function keyOf(hour: ProfileHour): string {
  return `${hour.app}\u0000${hour.profileId}\u0000${hour.hour}`;
}

/** The rollup job of this node, and the one door through which any roll goes (one at a time). */
export class AnalyticsRollup {
  readonly #options: AnalyticsRollupOptions;
  readonly #job: ScheduledJob;
  readonly #hoursRolled: Counter;
  readonly #pruned: Counter;
  #serial: Promise<unknown> = Promise.resolve();
  #lastWideRun: number | undefined;
  /** Where this node's runs left off reading signals, and when it was last stored for the other nodes. */
  #watermark: number | undefined;
  #watermarkStored = 0;
  /** When each hour's last roll ended and how long it took (ms), for the pace of scheduled runs. */
  readonly #lastRolls = new Map<string, { endedAt: number; tookMs: number }>();
  /** Hours a scheduled run found changed but held back for the pace: rolled by a later run. */
  readonly #deferred = new Map<string, ProfileHour>();

  constructor(options: AnalyticsRollupOptions) {
    this.#options = options;
    this.#hoursRolled = new Counter({
      name: 'searchdeck_analytics_hours_rolled_total',
      help: 'Profile hours rolled up again from their raw signals',
      registers: [options.metrics],
    });
    this.#pruned = new Counter({
      name: 'searchdeck_analytics_rollup_rows_pruned_total',
      help: 'Rollup rows deleted past the rollup retention',
      registers: [options.metrics],
    });
    this.#job = new ScheduledJob({
      name: ROLLUP_JOB,
      schedule: options.schedule ?? ROLLUP_SCHEDULE,
      leaseMs: JOB_LEASE_MS,
      store: options.store,
      jobs: options.jobs,
      log: options.log,
      now: options.now,
      failureMessage: 'analytics rollup failed',
      work: (now) => this.#serially(() => this.#rollChanged(now.getTime(), true)),
    });
  }

  start(): void {
    this.#job.start();
  }

  /** Resolves once a run under way is done. */
  stop(): Promise<void> {
    return this.#job.stop();
  }

  /** One scheduled run now; false when another node holds the lease. */
  runScheduledJob(): Promise<boolean> {
    return this.#job.runOnLease();
  }

  /** Rolls what changed now, without the lease (a roll is idempotent); for tests and tools. */
  rollChanged(): Promise<void> {
    return this.#serially(() => this.#rollChanged(this.#options.now().getTime()));
  }

  /** Rolls these hours again now (after a privacy delete), unless raw retention has begun on them. */
  rollHours(hours: readonly ProfileHour[]): Promise<void> {
    return this.#serially(async () => {
      const oldest = this.#oldestRollableHour(this.#options.now().getTime());
      for (const hour of hours) if (hour.hour >= oldest) await this.#roll(hour);
    });
  }

  /** Every roll of this node runs after the one before, so none writes what it read before another's write. */
  #serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#serial.then(work, work);
    this.#serial = run.catch(() => {});
    return run;
  }

  async #roll(hour: ProfileHour): Promise<void> {
    const clock = this.#options.monotonic ?? performance.now.bind(performance);
    const started = clock();
    await rollHour(this.#options.store, hour);
    const endedAt = clock();
    this.#lastRolls.set(keyOf(hour), { endedAt, tookMs: endedAt - started });
    this.#deferred.delete(keyOf(hour));
    this.#hoursRolled.inc();
  }

  /** Whether a scheduled run holds this hour back: its last roll ended too short a while ago. */
  #heldBack(hour: ProfileHour): boolean {
    const last = this.#lastRolls.get(keyOf(hour));
    const clock = this.#options.monotonic ?? performance.now.bind(performance);
    return last !== undefined && clock() - last.endedAt < PACE * last.tookMs;
  }

  // Raw rows are pruned by their time, not by hour: the hour they are being pruned from (and
  // older ones) would roll to less than it holds, so it keeps its rollup.
  #oldestRollableHour(now: number): number {
    return hourOf(now - (this.#options.rawRetentionDays ?? RAW_RETENTION_DAYS) * DAY_MS) + HOUR_MS;
  }

  async #rollChanged(now: number, paced = false): Promise<void> {
    const { store, log } = this.#options;
    const wide = this.#lastWideRun === undefined || now - this.#lastWideRun >= HOUR_MS;
    const oldest = this.#oldestRollableHour(now);
    const since = Math.max(hourOf(now - (wide ? WIDE_LOOKBACK_MS : NARROW_LOOKBACK_MS)), oldest);
    const dirty = new Map<string, ProfileHour>();
    const add = (hour: ProfileHour) => {
      if (hour.hour >= oldest) dirty.set(keyOf(hour), hour);
    };
    // Searches: an hour whose raw count differs from its rolled count got rows (late ones too).
    const rolled = new Map<string, number>();
    for (const row of await selectRolledHourCounts(store.reader, since)) rolled.set(keyOf(row), row.searches);
    for (const row of await selectRawHourCounts(store.reader, since)) {
      if (rolled.get(keyOf(row)) !== row.searches) add(row);
      rolled.delete(keyOf(row));
    }
    for (const key of rolled.keys()) {
      const [app = '', profileId = '', hour = '0'] = key.split('\u0000');
      add({ app, profileId, hour: Number(hour) });
    }
    // Signals: by the time they were received, so a click on an old search rolls that search's hour.
    const stored = this.#watermark === undefined ? await selectState(store.db, WATERMARK) : undefined;
    const watermark = this.#watermark ?? stored ?? now - WIDE_LOOKBACK_MS;
    for (const hour of await selectHoursOfSignalsReceived(store.reader, watermark - RECEIVED_SLACK_MS))
      add(hour);
    const marks = await selectDirtyHours(store.db);
    for (const mark of marks) add(mark);
    for (const [key, hour] of this.#deferred) if (hour.hour >= oldest) dirty.set(key, hour);
    for (const [key, hour] of dirty) {
      if (paced && this.#heldBack(hour)) this.#deferred.set(key, hour);
      else await this.#roll(hour);
    }
    for (const mark of marks)
      if (!this.#deferred.has(keyOf(mark))) await clearDirtyHour(store.db, mark, mark.markedAt);
    this.#watermark = Math.max(now, watermark);
    // Stored once a minute, not on every run (on SQLite each write is a synchronous commit): a
    // node that takes the lease over reads signals again from a minute earlier, which only
    // rolls a few hours again for nothing.
    if (now - this.#watermarkStored >= 60_000) {
      await saveState(store.db, WATERMARK, this.#watermark);
      this.#watermarkStored = now;
    }
    if (wide) {
      this.#lastWideRun = now;
      for (const key of this.#lastRolls.keys()) {
        const hour = Number(key.slice(key.lastIndexOf('\u0000') + 1));
        if (hour < since) this.#lastRolls.delete(key);
      }
      const pruned = await pruneRollups(store.db, now - this.#options.retentionDays * DAY_MS);
      if (pruned > 0) {
        this.#pruned.inc(pruned);
        log.info(
          { pruned, retentionDays: this.#options.retentionDays },
          'analytics rollups past the retention pruned',
        );
      }
    }
  }
}
