// Bearer authentication of the Rules & Rewrites API: a valid token with the scope of the
// half it calls, acting for its own studio only.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../http/errors.js';
import { hostLabel } from '../http/host-label.js';
import type { Database } from '../storage/schema.js';
import { studioExists } from '../studios/service.js';
import { SESSION_CHALLENGE, sessionOf, type UserAuthDeps } from '../users/admin-auth.js';
import { mayUseStudio } from '../users/roles.js';
import { sessionIdFrom } from '../users/session-cookie.js';
import type { Actor } from './actor.js';
import type { Scope } from './scopes.js';
import { InvalidTokenError, type TokenService } from './token-service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The studio and client a request of the Rules API acts as; null before `requireBearer`. */
    actor: Actor | null;
  }
}

/** The studio and client a request of the Rules API acts as (set by `requireBearer`). */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw new Error('requireBearer did not run for this route');
  return request.actor;
}

/**
 * What checks a credential of the Rules and Rewrites APIs: the app's token service, and the
 * console's sessions, which a studio's own paths take too.
 */
export interface StudioCredentials {
  readonly tokens: TokenService;
  readonly sessions: UserAuthDeps;
}

/**
 * What a node's own copy of the studios says of a token, without the database: the actor and
 * scopes of a token whose signature and times check and whose client the copy holds, else
 * undefined (then the token's client is looked up in the database).
 */
export type VouchedToken = (token: string) => { actor: Actor; scopes: readonly string[] } | undefined;

/**
 * Requires a bearer token with `scope` on every route of the (encapsulated) instance; at
 * `/studios/{studioId}/…`, a console session instead (without an Authorization header).
 * `vouch` lets routes answered from a copy of the studios check tokens against that copy.
 */
export function requireBearer(
  app: FastifyInstance,
  db: Kysely<Database>,
  { tokens, sessions }: StudioCredentials,
  scope: Scope,
  vouch?: VouchedToken,
): void {
  if (!app.hasRequestDecorator('actor')) app.decorateRequest('actor', null);
  if (!app.hasRequestDecorator('principal')) app.decorateRequest('principal', null);
  if (!app.hasRequestDecorator('session')) app.decorateRequest('session', null);
  app.addHook('onRequest', async (request) => {
    const header = request.headers.authorization;
    const pathStudio = (request.params as { studioId?: string } | undefined)?.studioId;
    if (!header && pathStudio !== undefined && sessionIdFrom(request.headers.cookie) !== undefined) {
      request.actor = await sessionActor(request, db, sessions, pathStudio);
      return;
    }
    if (!header || !/^bearer /i.test(header)) {
      throw new UnauthorizedError('a bearer token is required', 'Bearer realm="searchdeck"');
    }
    const token = header.slice(7).trim();
    let claims: { actor: Actor; scopes: readonly string[] } | undefined = vouch?.(token);
    if (claims === undefined) {
      try {
        const verified = await tokens.verify(db, token);
        claims = {
          actor: { studioId: verified.studioId, clientName: verified.clientName },
          scopes: verified.scopes,
        };
      } catch (error) {
        if (!(error instanceof InvalidTokenError)) throw error;
        throw new UnauthorizedError(error.message, 'Bearer realm="searchdeck", error="invalid_token"');
      }
    }
    const { actor, scopes } = claims;
    if (!scopes.includes(scope)) throw new ForbiddenError(`the token lacks scope ${scope}`);
    if (pathStudio !== undefined && pathStudio !== actor.studioId) {
      throw new ForbiddenError(`the token is not for studio ${pathStudio}`);
    }
    const label = hostLabel(request.hostname);
    if (label !== undefined && label !== actor.studioId && (await studioExists(db, label))) {
      throw new ForbiddenError(`the token is not for studio ${label}`);
    }
    request.actor = actor;
  });
}

/**
 * The actor of a console session at `/studios/{studioId}/…`: the signed-in user, when their
 * role lets them use the studio (sessionOf has checked the CSRF token of a change).
 */
async function sessionActor(
  request: FastifyRequest,
  db: Kysely<Database>,
  auth: UserAuthDeps,
  studioId: string,
): Promise<Actor> {
  const session = await sessionOf(request, auth);
  if (!session) throw new UnauthorizedError('the session has ended; sign in again', SESSION_CHALLENGE);
  const { user } = session;
  if (!mayUseStudio(user, studioId, request.method)) {
    throw new ForbiddenError(
      `the role ${user.role} of ${user.username} may not ${request.method} in studio ${studioId}`,
    );
  }
  const label = hostLabel(request.hostname);
  if (label !== undefined && label !== studioId && (await studioExists(db, label))) {
    throw new ForbiddenError(`this host is for studio ${label}`);
  }
  if (!(await studioExists(db, studioId))) throw new NotFoundError(`no studio ${studioId}`);
  request.principal = user;
  request.session = session;
  return { studioId, userName: user.username };
}
