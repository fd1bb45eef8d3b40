// The Signals API, `POST /api/apps/{app}/signals/{collection}`, in Fusion's shape: a shop's
// server sends it with a user's credentials, a shop's pages with a search-only key of a profile
// over that collection (CORS for the origins the app's profiles over it allow).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Area, TypedApp } from '../http/area.js';
import { ForbiddenError, UnauthorizedError, ValidationError } from '../http/errors.js';
import { ErrorBodySchema, sharedRef } from '../http/schemas.js';
import type { UserCheck } from '../query/query-endpoint.js';
import type { QueryParts } from '../query/query-parts.js';
import type { ServedProfiles } from '../query/served-profiles.js';
import { sessionIdFrom } from '../users/session-cookie.js';
import { SignalsAnswer, SignalsBody, SignalsParams, SignalsQuery } from './schemas.js';
import { SignalsService } from './service.js';
import type { SignalsParts } from './signals-parts.js';

const PATH = '/api/apps/:app/signals/:collection';
const CHALLENGE = 'Bearer realm="searchdeck-query", Basic realm="searchdeck", charset="UTF-8"';

/**
 * Whether the request's credential may post signals to the collection of the app: a search-only
 * key of a profile of that app over that collection, or a user who may change things (an admin
 * or a merchandiser; a viewer only reads). 401 without a valid credential, 403 otherwise.
 */
function mayPost(served: ServedProfiles, userCheck: UserCheck) {
  return async (request: FastifyRequest): Promise<void> => {
    const header = request.headers.authorization ?? '';
    const { app, collection } = request.params as { app: string; collection: string };
    if (/^bearer /i.test(header)) {
      const owner = served.profileOfKey(header.slice(7).trim());
      if (!owner) throw new UnauthorizedError('invalid or revoked search-only key', CHALLENGE);
      if (owner.app !== app || owner.profile.collection !== collection) {
        throw new ForbiddenError(
          `the key's query profile searches collection ${owner.profile.collection} of app ${owner.app}: it may post signals there only`,
        );
      }
      return;
    }
    if (/^basic /i.test(header) || (header === '' && sessionIdFrom(request.headers.cookie) !== undefined)) {
      const user = await userCheck(request);
      if (user.role === 'viewer') throw new ForbiddenError('the role viewer may not post signals');
      return;
    }
    throw new UnauthorizedError(
      "a query profile's key (Bearer) or a user's credentials (Basic) are required",
      CHALLENGE,
    );
  };
}

/** The CORS headers of an origin the app's profiles over the collection allow; none for others. */
function allowOrigin(served: ServedProfiles, request: FastifyRequest, reply: FastifyReply): boolean {
  const origin = request.headers.origin;
  const { app, collection } = request.params as { app?: string; collection?: string };
  if (origin === undefined || app === undefined || collection === undefined) return false;
  reply.header('vary', 'Origin');
  if (!served.originAllowed(app, collection, origin)) return false;
  reply.header('access-control-allow-origin', origin);
  return true;
}

/** Why a request was refused, as counted: a bad body, or a credential refused; undefined for a failure of ours. */
function refusal(error: unknown): 'invalid' | 'unauthorized' | undefined {
  const { validation, statusCode } = error as { validation?: unknown; statusCode?: number };
  if (error instanceof ValidationError || validation !== undefined || statusCode === 400) return 'invalid';
  if (error instanceof UnauthorizedError || error instanceof ForbiddenError) return 'unauthorized';
  return undefined;
}

export function signalsArea(parts: SignalsParts, query: QueryParts, userCheck: UserCheck): Area {
  return {
    name: 'signals',
    async public(root, ctx) {
      const service = new SignalsService(parts, ctx.now, ctx.log);
      const served = query.served;
      // The requests being read and checked, which the writer waits for (signal-writer.ts).
      const arriving = new WeakMap<FastifyRequest, () => void>();
      await root.register(async (app: TypedApp) => {
        // Every answer, a refusal included, is readable by an allowed page.
        app.addHook('onRequest', async (request, reply) => {
          allowOrigin(served, request, reply);
        });
        app.options(PATH, { schema: { hide: true } }, (request, reply) => {
          if (allowOrigin(served, request, reply)) {
            reply.headers({
              'access-control-allow-methods': 'POST, OPTIONS',
              'access-control-allow-headers': 'Authorization, Content-Type',
              'access-control-max-age': '600',
            });
          }
          return reply.code(204).send();
        });
        app.post(
          PATH,
          {
            schema: {
              tags: ['signals'],
              operationId: 'postSignals',
              summary:
                "Signals in Fusion's shape: clicks, carts, purchases and the shop's own types (1-1,000)",
              description:
                "Every signal is checked before any is stored: a bad one refuses the request (400 naming its index and field). A signal with `fusion_query_id` belongs to that search; a click without one to the shopper's last search that showed the document within 30 minutes. docs/analytics.md has the details.",
              params: SignalsParams,
              querystring: SignalsQuery,
              body: SignalsBody,
              response: {
                200: SignalsAnswer,
                ...Object.fromEntries([400, 401, 403].map((status) => [status, sharedRef(ErrorBodySchema)])),
              },
            },
            onRequest: async (request) => {
              arriving.set(request, parts.writer.arrive());
            },
            onResponse: async (request) => {
              arriving.get(request)?.();
            },
            onRequestAbort: async (request) => {
              arriving.get(request)?.();
            },
            // Before the body is checked: a request without a valid credential learns nothing of it.
            preValidation: mayPost(served, userCheck),
            onError: async (request, _reply, error) => {
              // The signals of a refused request, counted by why (a refused credential or a bad body).
              const reason = refusal(error);
              if (reason === undefined) return;
              const signals = Array.isArray(request.body) ? request.body.length : 1;
              parts.metrics.rejected.inc({ reason }, signals);
            },
          },
          async (request) => {
            arriving.get(request)?.();
            const accepted = await service.post(request.params, request.body, { async: request.query.async });
            return { accepted };
          },
        );
      });
    },
  };
}
