import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import {
  type AttemptWindowRow,
  countFailure,
  currentWindow,
  dropEndedWindows,
  endCheck,
  startCheck,
} from './attempt-window-repository.js';

/** A check of a client's credentials, counted while it runs. */
export interface Attempt {
  /** Seconds until the client may try again when the check may not start, else 0. */
  readonly retryAfter: number;
  /** The credentials were wrong: counts a failure. */
  failed(): Promise<void>;
  /** Anything but wrong credentials (right ones, another error): counts nothing. */
  release(): Promise<void>;
}

const SWEEP_EVERY_MS = 60_000;

/**
 * Counts failures per client address in fixed windows (10 a minute by default), in the
 * database, so every node sharing it counts the same attempts. A client with `maxFailures`
 * failures in its window is refused until the window ends.
 *
 * A slow check (a password hash) is counted while it runs, and only as many may run as
 * failures are left: otherwise a client could start any number of guesses in parallel
 * before the first failure is written, and each would pass the limit.
 */
export class FailureLimiter {
  private lastSweep = 0;

  constructor(
    private readonly db: Kysely<Database>,
    /** Which limit this is (`admin-login`, `token-request`); each counts on its own. */
    private readonly counter: string,
    private readonly now: () => Date,
    private readonly maxFailures = 10,
    private readonly windowMs = 60_000,
  ) {}

  /** Seconds until the client may try again, or 0 when it is not blocked. */
  async retryAfter(client: string): Promise<number> {
    const now = this.now();
    return this.retryAfterOf(await currentWindow(this.db, this.counter, client, now), now);
  }

  /** Seconds until a client whose current window is `window` may try again, or 0. */
  retryAfterOf(window: AttemptWindowRow | undefined, now: Date): number {
    return window && window.failures >= this.maxFailures ? secondsUntil(window.window_ends_at, now) : 0;
  }

  /** Counts a failure whose check is done (one that needed no slow check). */
  async recordFailure(client: string): Promise<void> {
    const now = this.now();
    await this.sweep(now);
    await countFailure(this.db, this.counter, client, now, this.windowEnd(now));
  }

  /**
   * Starts a slow check. When there is no room, `retryAfter` says for how long: until the
   * window ends when the failures are used up, else a second (other checks are under way,
   * any of which may still succeed). Otherwise exactly one of `failed()`, `release()` must
   * follow.
   */
  async begin(client: string): Promise<Attempt> {
    const now = this.now();
    await this.sweep(now);
    const window = await startCheck(
      this.db,
      this.counter,
      client,
      now,
      this.windowEnd(now),
      this.maxFailures,
    );
    if (window === undefined) {
      const current = await currentWindow(this.db, this.counter, client, now);
      const full = current !== undefined && current.failures >= this.maxFailures;
      const retryAfter = full ? secondsUntil(current.window_ends_at, now) : 1;
      return { retryAfter, failed: async () => {}, release: async () => {} };
    }
    let ended = false;
    const end = async (failed: boolean) => {
      if (ended) return;
      ended = true;
      const counted = await endCheck(this.db, this.counter, client, window, failed);
      // The window ended during the check: the failure counts in the one now running.
      if (!counted && failed) await this.recordFailure(client);
    };
    return { retryAfter: 0, failed: () => end(true), release: () => end(false) };
  }

  private windowEnd(now: Date): Date {
    return new Date(now.getTime() + this.windowMs);
  }

  /** Drops ended windows at most once a minute per node, so the table holds recent clients only. */
  private async sweep(now: Date): Promise<void> {
    if (Math.abs(now.getTime() - this.lastSweep) < SWEEP_EVERY_MS) return;
    this.lastSweep = now.getTime();
    await dropEndedWindows(this.db, now);
  }
}

/** Whole seconds from `now` until the ISO time `at`, at least 1 (for `Retry-After`). */
export function secondsUntil(at: string, now: Date): number {
  return Math.max(1, Math.ceil((Date.parse(at) - now.getTime()) / 1000));
}
