import type { FastifyBaseLogger } from 'fastify';
import { PasswordCheck, type UserAuthDeps } from '../http/admin-auth.js';
import type { FailureLimiter } from '../http/rate-limiter.js';
import type { Store } from '../storage/database.js';
import { UserVerifier } from './verifier.js';

/** What authenticates users: their passwords (with the shared failure limit) and sessions. */
export class UsersParts {
  readonly auth: UserAuthDeps;
  readonly passwords: PasswordCheck;

  constructor(
    store: Store,
    limiter: FailureLimiter,
    now: () => Date,
    sessionIdleMinutes: number,
    log: FastifyBaseLogger,
  ) {
    this.auth = {
      db: store.db,
      verifier: new UserVerifier(store.db),
      limiter,
      now,
      sessionIdleMs: sessionIdleMinutes * 60_000,
    };
    this.passwords = new PasswordCheck(this.auth, log);
  }

  /** A user was changed or deleted on this node: its remembered credentials go at once. */
  forget(username: string): void {
    this.auth.verifier.forget(username);
  }
}
