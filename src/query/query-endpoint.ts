// The query endpoint, `/api/apps/{app}/query/{profile}`: a shopper's query through a profile
// (GET, or POST with a form as Solr takes it), sent with a profile's search-only key, or by a
// user with Basic credentials or a console session. Answered by its route alone: its time is
// Solr's, and a path with parameters is the router's to find (docs/decisions.md).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { TypedApp } from '../http/area.js';
import { UnauthorizedError } from '../http/errors.js';
import { ErrorBodySchema, sharedRef } from '../http/schemas.js';
import type { Principal } from '../users/roles.js';
import { sessionIdFrom } from '../users/session-cookie.js';
import { QueryParams } from './schemas.js';
import type { ServedProfiles } from './served-profiles.js';
import type { QueryAnswer, QueryCaller, QueryService } from './service.js';

const CHALLENGE = 'Bearer realm="searchdeck-query", Basic realm="searchdeck", charset="UTF-8"';
const JSON_TYPE = 'application/json; charset=utf-8';
/** Fusion's header for the id of a query's answer. */
export const QUERY_ID_HEADER = 'x-fusion-query-id';

/**
 * A user's Basic credentials or console session, to let users call the query endpoint too:
 * the user (their role and studios decide whether they may ask for staging content).
 */
export type UserCheck = (request: FastifyRequest) => Promise<Principal>;

declare module 'fastify' {
  interface FastifyRequest {
    /** Who sent a query (the endpoint's hook sets it): a search-only key or a user. */
    queryCaller: QueryCaller | null;
  }
}

/** The schema of both methods: Solr's answer passed on as text, or the common error body. */
const schema = {
  tags: ['query'],
  summary: "A shopper's query through a profile: Solr's JSON answer, plus `fusion` (what searchdeck did)",
  description:
    "The shopper's parameters are `q`, `segment` (repeatable) and those the profile allows. `staging=true` evaluates the studio's staging rules and rewrites (drafts included) instead of the live ones: for a user who may change the profile's studio (Basic credentials or a console session), 403 for a search-only key. docs/query.md has the details.",
  params: QueryParams,
  response: {
    // Sent as the text built from Solr's answer (Solr's members unchanged), not re-serialized.
    200: Type.Unsafe<string>({
      type: 'object',
      additionalProperties: true,
      description: "Solr's JSON answer as Solr gave it, plus `fusion`: what searchdeck did",
    }),
    ...Object.fromEntries(
      [400, 401, 403, 404, 502, 504].map((status) => [status, sharedRef(ErrorBodySchema)]),
    ),
  },
};

/** Accepts the profile's key, or a user (Basic or a session); else 401 naming both. */
function keyOrUser(served: ServedProfiles, userCheck: UserCheck) {
  return async (request: FastifyRequest): Promise<void> => {
    const header = request.headers.authorization ?? '';
    const { app, profile } = request.params as { app: string; profile: string };
    if (/^bearer /i.test(header)) {
      if (!served.keyOpens(header.slice(7).trim(), app, profile))
        throw new UnauthorizedError('invalid or revoked key for this query profile', CHALLENGE);
      request.queryCaller = 'key';
      return;
    }
    // A user's Basic credentials, or the console's query workbench: a signed-in user's
    // session, as for the Rules API.
    if (/^basic /i.test(header) || (header === '' && sessionIdFrom(request.headers.cookie) !== undefined)) {
      request.queryCaller = await userCheck(request);
      return;
    }
    throw new UnauthorizedError(
      "a query profile's key (Bearer) or admin credentials (Basic) are required",
      CHALLENGE,
    );
  };
}

function callerOf(request: FastifyRequest): QueryCaller {
  const caller = request.queryCaller;
  // The hook runs before every handler of the scope; a request without a caller never gets here.
  if (caller === null) throw new UnauthorizedError('no credentials were checked', CHALLENGE);
  return caller;
}

/**
 * An answered query: its id in Fusion's header (the shop sends it back with the shopper's
 * clicks as `fusion_query_id`), exposed to a page's script, and the body as built.
 */
function answered(reply: FastifyReply, { body, queryId }: QueryAnswer): FastifyReply {
  return reply
    .header(QUERY_ID_HEADER, queryId)
    .header('access-control-expose-headers', QUERY_ID_HEADER)
    .type(JSON_TYPE)
    .send(body);
}

/** The endpoint takes a form, as Solr does; a JSON body is refused (415), not ignored. */
function formBodies(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => done(null, body),
  );
}

/** The query endpoint's two routes, in a scope of their own (its body parsers and credentials). */
export async function queryRoutes(
  root: TypedApp,
  service: QueryService,
  served: ServedProfiles,
  userCheck: UserCheck,
): Promise<void> {
  await root.register(async (app: TypedApp) => {
    formBodies(app);
    app.decorateRequest('queryCaller', null);
    app.addHook('preHandler', keyOrUser(served, userCheck));
    app.get(
      '/api/apps/:app/query/:profile',
      { schema: { ...schema, operationId: 'query' } },
      async (request, reply) => {
        const search = new URLSearchParams(
          request.url.slice(request.url.indexOf('?') + 1 || request.url.length),
        );
        const answer = await service.query(
          request.params.app,
          request.params.profile,
          search,
          callerOf(request),
        );
        return answered(reply, answer);
      },
    );
    app.post(
      '/api/apps/:app/query/:profile',
      { schema: { ...schema, operationId: 'queryForm' } },
      async (request, reply) => {
        const search = new URLSearchParams(typeof request.body === 'string' ? request.body : '');
        const answer = await service.query(
          request.params.app,
          request.params.profile,
          search,
          callerOf(request),
        );
        return answered(reply, answer);
      },
    );
  });
}
