// Bearer authentication of the Rules API: a valid token with the rules scope,
// acting for its own studio only.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { ForbiddenError, UnauthorizedError } from '../http/errors.js';
import { hostLabel } from '../http/host-label.js';
import type { Actor } from '../rules/service.js';
import type { Database } from '../storage/schema.js';
import { studioExists } from '../studios/service.js';
import { InvalidTokenError, type TokenService } from './token-service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The studio and client a request of the Rules API acts as; null before `requireBearer`. */
    actor: Actor | null;
  }
}

const RULES_SCOPE = 'commercestudio.rules';

/** The studio and client a request of the Rules API acts as (set by `requireBearer`). */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw new Error('requireBearer did not run for this route');
  return request.actor;
}

/** Requires a bearer token on every route of the (encapsulated) instance. */
export function requireBearer(app: FastifyInstance, db: Kysely<Database>, tokens: TokenService): void {
  if (!app.hasRequestDecorator('actor')) app.decorateRequest('actor', null);
  app.addHook('onRequest', async (request) => {
    const header = request.headers.authorization;
    if (!header || !/^bearer /i.test(header)) {
      throw new UnauthorizedError('a bearer token is required', 'Bearer realm="searchdeck"');
    }
    let claims: Awaited<ReturnType<TokenService['verify']>>;
    try {
      claims = await tokens.verify(header.slice(7).trim());
    } catch (error) {
      if (!(error instanceof InvalidTokenError)) throw error;
      throw new UnauthorizedError(error.message, 'Bearer realm="searchdeck", error="invalid_token"');
    }
    if (!claims.scopes.includes(RULES_SCOPE))
      throw new ForbiddenError(`the token lacks scope ${RULES_SCOPE}`);
    const pathStudio = (request.params as { studioId?: string } | undefined)?.studioId;
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
