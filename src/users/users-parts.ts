import type { FastifyBaseLogger } from 'fastify';
import type { FailureLimiter } from '../http/rate-limiter.js';
import type { Store } from '../storage/database.js';
import { AccountThrottle } from './account-throttle.js';
import { PasswordCheck, type UserAuthDeps } from './admin-auth.js';
import { UserVerifier } from './verifier.js';

/** What authenticates users: their passwords (with the shared failure limit) and sessions. */
export class UsersParts {
  readonly auth: UserAuthDeps;
  readonly passwords: PasswordCheck;

  constructor(
    store: Store,
    limiter: FailureLimiter,
    now: () => Date,
    sessions: { idleMinutes: number; maxHours: number },
    log: FastifyBaseLogger,
  ) {
    this.auth = {
      db: store.db,
      verifier: new UserVerifier(store.db),
      limiter,
      accounts: new AccountThrottle(store.db, now),
      now,
      sessions: { idleMs: sessions.idleMinutes * 60_000, maxMs: sessions.maxHours * 3_600_000 },
    };
    this.passwords = new PasswordCheck(this.auth, log);
  }

  /** A user was changed or deleted on this node: its remembered credentials go at once. */
  forget(username: string): void {
    this.auth.verifier.forget(username);
  }
}
