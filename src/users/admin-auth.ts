// Authentication of the Administrative API: a user's HTTP Basic credentials or a console
// session cookie; then the role check every route gets (roles.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { parseBasic } from '../http/basic-credentials.js';
import { ForbiddenError, TooManyRequestsError, UnauthorizedError } from '../http/errors.js';
import type { FailureLimiter } from '../http/rate-limiter.js';
import type { Database } from '../storage/schema.js';
import type { AccountThrottle, AccountTurn } from './account-throttle.js';
import { accessOf, mayCall, type Principal } from './roles.js';
import {
  type ActiveSession,
  activeSession,
  csrfTokenMatches,
  type SessionLimits,
  type User,
} from './service.js';
import { sessionIdFrom } from './session-cookie.js';
import type { UserVerifier } from './verifier.js';

const CHALLENGE = 'Basic realm="searchdeck", charset="UTF-8"';
// Not Basic: a browser that gets Basic's challenge to a request of the console asks for a
// password in its own dialog.
export const SESSION_CHALLENGE = 'Session realm="searchdeck"';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

declare module 'fastify' {
  interface FastifyRequest {
    /** Who calls the Administrative API (or a session-signed Rules API request); null before auth. */
    principal: Principal | null;
    /** The console session of the request, when it came with one. */
    session: ActiveSession | null;
  }
}

export interface UserAuthDeps {
  db: Kysely<Database>;
  verifier: UserVerifier;
  limiter: FailureLimiter;
  accounts: AccountThrottle;
  now: () => Date;
  sessions: SessionLimits;
}

type SlowVerdict = User | 'denied' | { retryAfter: number };
type QuickVerdict = { retryAfter: number } | { user: User } | { credentials: string };

const LAST_CREDENTIALS = Symbol('searchdeck.lastCredentials');
interface RememberedCredentials {
  username: string;
  password: string;
  key: string;
}

/**
 * Checks a username and password against the failure limits: a client with too many failed
 * logins is refused (429) before anything else, even with the right password, so the limit
 * slows guessing on every node; so is an address the user has not signed in from while the
 * account waits after failures from many addresses (AccountThrottle). Used by Basic
 * authentication and by signing in.
 */
export class PasswordCheck {
  // Slow checks under way, by client and credentials: the same guess sent many times at once
  // waits for one scrypt and counts as one attempt, so fifty parallel requests of a client
  // with the right password all pass, and fifty of a wrong one add one failure.
  private readonly underWay = new Map<string, Promise<SlowVerdict>>();

  constructor(
    private readonly deps: UserAuthDeps,
    private readonly log: FastifyInstance['log'],
  ) {}

  /**
   * The user, or throws 401 (`challenge`) or 429. `connection` (the request's socket) lets
   * the credentials' key be worked out once per connection instead of once per request.
   */
  async check(
    client: string,
    username: string,
    password: string,
    challenge: string,
    connection?: object,
  ): Promise<User> {
    const credentials = this.credentialsKey(connection, username, password);
    // Joined from the start, not only once the slow check begins: the quick verdict reads the
    // database, and a copy that finished reading after the first check ended would start
    // another, counting one guess twice.
    const key = `${client}\0${credentials}`;
    let check = this.underWay.get(key);
    if (check === undefined) {
      check = this.verdict(client, username, password, credentials).finally(() => this.underWay.delete(key));
      this.underWay.set(key, check);
    }
    const verdict = await check;
    if (verdict === 'denied') throw new UnauthorizedError('invalid username or password', challenge);
    if ('retryAfter' in verdict) throw tooManyFailures(verdict.retryAfter);
    return verdict;
  }

  /** The quick verdict, then the slow check where it leaves one. */
  private async verdict(
    client: string,
    username: string,
    password: string,
    credentials: string,
  ): Promise<SlowVerdict> {
    const quick = await this.quickVerdictOf(client, username, credentials, password);
    if ('retryAfter' in quick) return quick;
    if ('user' in quick) return quick.user;
    return this.slowCheck(client, username, password);
  }

  private async quickVerdictOf(
    client: string,
    username: string,
    credentials: string,
    password: string,
  ): Promise<QuickVerdict> {
    const { limiter, accounts } = this.deps;
    const retryAfter = await limiter.retryAfter(client);
    if (retryAfter > 0) return { retryAfter };
    // A client this node saw sign in lately is known: the account's window cannot hold it, and
    // a script's steady requests read nothing more than before.
    if (!accounts.signedInHere(username, client)) {
      const now = this.deps.now();
      const window = await accounts.window(username, now);
      if (accounts.watched(window) && !(await accounts.isKnown(username, client))) {
        // A stranger while the account has failures: even remembered credentials take the
        // account's turn (the slow check), else the right guess would pass while wrong ones wait.
        const wait = accounts.retryAfterOf(window, now);
        return wait > 0 ? { retryAfter: wait } : { credentials };
      }
    }
    const known = await this.deps.verifier.knownVerdict(username, password, credentials);
    if (!known) return { credentials };
    await accounts.rememberedSignIn(username, client);
    return { user: known };
  }

  /**
   * The verifier's key of these credentials, remembered on the connection they came over: a
   * client sends the same header on every request of a connection, and the HMAC behind the
   * key was a twentieth of a link check's CPU. It is only a name of the credentials; what
   * they admit is decided by the verifier and the failure limit on every request, as before.
   */
  private credentialsKey(connection: object | undefined, username: string, password: string): string {
    const remembering = connection as { [LAST_CREDENTIALS]?: RememberedCredentials } | undefined;
    const last = remembering?.[LAST_CREDENTIALS];
    if (last !== undefined && last.username === username && last.password === password) return last.key;
    const key = this.deps.verifier.credentialsKey(username, password);
    if (remembering) remembering[LAST_CREDENTIALS] = { username, password, key };
    return key;
  }

  private async slowCheck(client: string, username: string, password: string): Promise<SlowVerdict> {
    const { limiter, accounts } = this.deps;
    // Counted while it runs, so parallel guesses of different passwords cannot pass the limit.
    const attempt = await limiter.begin(client);
    if (attempt.retryAfter > 0) return { retryAfter: attempt.retryAfter };
    let turn: AccountTurn | undefined;
    let user: User | undefined;
    try {
      // From an address the user has not signed in from, the account's limit counts it too.
      if (!(await accounts.isKnown(username, client))) {
        turn = await accounts.begin(username);
        if (turn.retryAfter > 0) {
          await attempt.release();
          return { retryAfter: turn.retryAfter };
        }
      }
      user = await this.deps.verifier.verify(username, password);
    } catch (error) {
      await attempt.release().catch(() => {});
      await turn?.release().catch(() => {});
      throw error;
    }
    if (!user) {
      await attempt.failed();
      await turn?.failed();
      return 'denied';
    }
    // Verified: a check that cannot be ended now stays counted until its window ends.
    const warn = (error: unknown) => this.log.warn({ err: error }, 'attempt not released');
    await attempt.release().catch(warn);
    await turn?.succeeded().catch(warn);
    await accounts.signedIn(username, client).catch(warn);
    return user;
  }
}

/**
 * The session of the request's cookie when it is active, else undefined; for a request
 * that changes something, only with the session's CSRF token in `x-csrf-token`.
 */
export async function sessionOf(
  request: FastifyRequest,
  deps: UserAuthDeps,
): Promise<ActiveSession | undefined> {
  const id = sessionIdFrom(request.headers.cookie);
  if (id === undefined) return undefined;
  const session = await activeSession(deps.db, id, deps.now(), deps.sessions);
  if (!session) throw new UnauthorizedError('the session has ended; sign in again', SESSION_CHALLENGE);
  if (!SAFE_METHODS.has(request.method)) {
    const given = request.headers['x-csrf-token'];
    if (!csrfTokenMatches(session, typeof given === 'string' ? given : undefined)) {
      throw new ForbiddenError('a request of a session needs its CSRF token in x-csrf-token');
    }
  }
  return session;
}

/**
 * Requires a user on every route of the given (encapsulated) instance: HTTP Basic
 * credentials of any user, or a console session; then the route's role check.
 */
export function requireUser(app: FastifyInstance, deps: UserAuthDeps, passwords: PasswordCheck): void {
  if (!app.hasRequestDecorator('principal')) app.decorateRequest('principal', null);
  if (!app.hasRequestDecorator('session')) app.decorateRequest('session', null);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const credentials = parseBasic(request.headers.authorization);
    if (credentials) {
      request.principal = await passwords.check(
        request.ip,
        credentials.user,
        credentials.password,
        CHALLENGE,
        request.raw.socket,
      );
    } else {
      const session = request.headers.authorization ? undefined : await sessionOf(request, deps);
      if (!session)
        throw new UnauthorizedError('credentials are required (HTTP Basic or a session)', CHALLENGE);
      request.session = session;
      request.principal = session.user;
    }
    const params = (request.params ?? {}) as Record<string, string | undefined>;
    if (!mayCall(request.principal, request.method, accessOf(request), params)) {
      throw new ForbiddenError(`the role ${request.principal.role} may not ${request.method} this resource`);
    }
  });
}

function tooManyFailures(retryAfter: number): TooManyRequestsError {
  return new TooManyRequestsError('too many failed logins; try again later', retryAfter);
}

/**
 * A user's HTTP Basic credentials, checked against the failure limit like every login, or
 * (without an Authorization header) a console session, for routes that take another
 * credential first (a query profile's search-only key).
 */
export function userCheck(
  passwords: PasswordCheck,
  deps: UserAuthDeps,
): (request: FastifyRequest) => Promise<Principal> {
  return async (request) => {
    const credentials = parseBasic(request.headers.authorization);
    if (credentials) {
      return passwords.check(
        request.ip,
        credentials.user,
        credentials.password,
        CHALLENGE,
        request.raw.socket,
      );
    }
    const session = request.headers.authorization ? undefined : await sessionOf(request, deps);
    if (!session)
      throw new UnauthorizedError('credentials are required (HTTP Basic or a session)', CHALLENGE);
    return session.user;
  };
}
