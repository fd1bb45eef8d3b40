import type { Kysely } from 'kysely';
import { secondsUntil } from '../http/rate-limiter.js';
import type { Database } from '../storage/schema.js';
import {
  type AccountWindowRow,
  accountWindow,
  type Delays,
  endAccountCheck,
  startAccountCheck,
} from './account-window-repository.js';
import { isKnownSince, markKnown } from './known-client-repository.js';

export interface AccountThrottleSettings {
  /** Failures of an account (from addresses it has not signed in from) that wait for nothing. */
  freeFailures: number;
  /** The wait after the first failure beyond the free ones; it doubles with each further one. */
  firstDelayMs: number;
  maxDelayMs: number;
  /** An account's count is forgotten this long after its last check. */
  forgetAfterMs: number;
  /** An address the user signed in from is known for this long. */
  knownForMs: number;
  /** A check beyond the free ones holds the account's turn at most this long. */
  holdMs: number;
}

/** The defaults, and their reasons: docs/decisions.md, "Failed logins per account". */
export const ACCOUNT_THROTTLE: AccountThrottleSettings = {
  freeFailures: 10,
  firstDelayMs: 1000,
  maxDelayMs: 15 * 60_000,
  forgetAfterMs: 24 * 3_600_000,
  knownForMs: 30 * 24 * 3_600_000,
  holdMs: 10_000,
};

/** A check of an account's password from an address it is not known at, counted while it runs. */
export interface AccountTurn {
  /** Seconds until the account may be tried again when the check may not start, else 0. */
  readonly retryAfter: number;
  failed(): Promise<void>;
  /** The password matched: the account's failures are forgotten. */
  succeeded(): Promise<void>;
  /** Anything else (an error): counts nothing. */
  release(): Promise<void>;
}

const MAX_REMEMBERED_USERS = 1000;
const MARK_EVERY_MS = 24 * 3_600_000;

/**
 * Slows guessing of one account's password from many addresses, in the database so every
 * node counts the same failures. Failures from addresses the user has not signed in from in
 * the last 30 days count against the account; beyond the free ones, each further check of
 * the account from such an address waits a delay after the last failure that doubles up to
 * a bound. The addresses the user signed in from are never delayed by it (only by their own
 * per-address limit), so a stranger's guesses cannot keep the user out.
 */
export class AccountThrottle {
  // By user, then client: when this node last marked a client known for remembered
  // credentials, so that a script's steady requests write it once a day, not each time.
  private readonly marked = new Map<string, Map<string, number>>();
  private readonly delays: (now: Date) => Delays;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => Date,
    private readonly settings = ACCOUNT_THROTTLE,
  ) {
    const steps: number[] = [];
    for (let ms = settings.firstDelayMs; ms < settings.maxDelayMs; ms *= 2) steps.push(ms);
    steps.push(settings.maxDelayMs);
    this.delays = (now) => ({
      free: settings.freeFailures,
      after: steps.map((ms) => new Date(now.getTime() + ms).toISOString()),
    });
  }

  /** The account's window that has not ended yet, if any. */
  window(username: string, now: Date): Promise<AccountWindowRow | undefined> {
    return accountWindow(this.db, username, now);
  }

  /**
   * Whether this node saw the user's password match from this client in the last day: such
   * a client is known, and its requests need not read the account's window at all.
   */
  signedInHere(username: string, client: string): boolean {
    const at = this.marked.get(username)?.get(client);
    return at !== undefined && Math.abs(this.now().getTime() - at) < MARK_EVERY_MS;
  }

  /**
   * Whether checks of the account from unknown addresses take its turn: it has failures or
   * checks under way in its window. Remembered credentials then take the turn too, else a
   * guess that is right would pass while the wrong ones wait, telling them apart.
   */
  watched(window: AccountWindowRow | undefined): boolean {
    return window !== undefined && window.failures + window.pending > 0;
  }

  /** Seconds an unknown address must wait to try the account (its window as read), or 0. */
  retryAfterOf(window: AccountWindowRow | undefined, now: Date): number {
    if (window?.retry_at == null || window.failures + window.pending < this.settings.freeFailures) return 0;
    return Date.parse(window.retry_at) > now.getTime() ? secondsUntil(window.retry_at, now) : 0;
  }

  /** Whether the user signed in from this client within the known time. */
  isKnown(username: string, client: string): Promise<boolean> {
    const since = new Date(this.now().getTime() - this.settings.knownForMs).toISOString();
    return isKnownSince(this.db, username, client, since);
  }

  /** The password matched from this client: it is known for the user from now on. */
  async signedIn(username: string, client: string): Promise<void> {
    const now = this.now();
    this.rememberMark(username, client, now.getTime());
    const staleBefore = new Date(now.getTime() - this.settings.knownForMs).toISOString();
    await markKnown(this.db, username, client, now.toISOString(), staleBefore);
  }

  /** Remembered credentials matched from this client: marked known at most once a day per node. */
  async rememberedSignIn(username: string, client: string): Promise<void> {
    if (!this.signedInHere(username, client)) await this.signedIn(username, client);
  }

  /** Starts a check of the account's password from an unknown address, or says how long to wait. */
  async begin(username: string): Promise<AccountTurn> {
    const now = this.now();
    const { freeFailures, forgetAfterMs, holdMs } = this.settings;
    const forgetAt = new Date(now.getTime() + forgetAfterMs);
    const holdUntil = new Date(now.getTime() + holdMs);
    if (!(await startAccountCheck(this.db, username, now, forgetAt, holdUntil, freeFailures))) {
      const window = await accountWindow(this.db, username, now);
      // No wait left: the free checks or the turn are taken by checks under way.
      return { retryAfter: this.retryAfterOf(window, now) || 1, ...nothingToEnd };
    }
    let ended = false;
    const end = async (outcome: 'failed' | 'succeeded' | 'released') => {
      if (ended) return;
      ended = true;
      const at = this.now();
      const forget = new Date(at.getTime() + forgetAfterMs);
      await endAccountCheck(this.db, username, outcome, at, forget, this.delays(at));
    };
    return {
      retryAfter: 0,
      failed: () => end('failed'),
      succeeded: () => end('succeeded'),
      release: () => end('released'),
    };
  }

  private rememberMark(username: string, client: string, at: number): void {
    let clients = this.marked.get(username);
    if (clients === undefined) {
      if (this.marked.size >= MAX_REMEMBERED_USERS) this.marked.clear();
      clients = new Map();
      this.marked.set(username, clients);
    }
    if (clients.size >= MAX_REMEMBERED_USERS) clients.clear();
    clients.set(client, at);
  }
}

const nothingToEnd = { failed: async () => {}, succeeded: async () => {}, release: async () => {} };
