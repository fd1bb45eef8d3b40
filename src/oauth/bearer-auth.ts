// Bearer authentication of the Rules & Rewrites API: a valid token with the scope of the
// half it calls, acting for its own studio only.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { SESSION_CHALLENGE, sessionOf, type UserAuthDeps } from '../http/admin-auth.js';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../http/errors.js';
import { hostLabel } from '../http/host-label.js';
import type { Database } from '../storage/schema.js';
import { studioExists } from '../studios/service.js';
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
 * Requires a bearer token with `scope` on every route of the (encapsulated) instance; at
 * `/studios/{studioId}/…`, a console session instead (without an Authorization header).
 */
export function requireBearer(
  app: FastifyInstance,
  db: Kysely<Database>,
  tokens: TokenService,
  scope: Scope,
): void {
  if (!app.hasRequestDecorator('actor')) app.decorateRequest('actor', null);
  if (!app.hasRequestDecorator('principal')) app.decorateRequest('principal', null);
  if (!app.hasRequestDecorator('session')) app.decorateRequest('session', null);
  app.addHook('onRequest', async (request) => {
    const header = request.headers.authorization;
    const pathStudio = (request.params as { studioId?: string } | undefined)?.studioId;
    if (!header && pathStudio !== undefined && sessionIdFrom(request.headers.cookie) !== undefined) {
      request.actor = await sessionActor(request, db, app.parts.users.auth, pathStudio);
      return;
    }
    if (!header || !/^bearer /i.test(header)) {
      throw new UnauthorizedError('a bearer token is required', 'Bearer realm="searchdeck"');
    }
    let claims: Awaited<ReturnType<TokenService['verify']>>;
    try {
      claims = await tokens.verify(db, header.slice(7).trim());
    } catch (error) {
      if (!(error instanceof InvalidTokenError)) throw error;
      throw new UnauthorizedError(error.message, 'Bearer realm="searchdeck", error="invalid_token"');
    }
    if (!claims.scopes.includes(scope)) throw new ForbiddenError(`the token lacks scope ${scope}`);
    if (pathStudio !== undefined && pathStudio !== claims.studioId) {
      throw new ForbiddenError(`the token is not for studio ${pathStudio}`);
    }
    const label = hostLabel(request.hostname);
    if (label !== undefined && label !== claims.studioId && (await studioExists(db, label))) {
      throw new ForbiddenError(`the token is not for studio ${label}`);
    }
    request.actor = { studioId: claims.studioId, clientName: claims.clientName };
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
