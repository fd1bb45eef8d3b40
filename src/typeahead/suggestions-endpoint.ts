// The Typeahead API, `GET /typeahead/suggestions` with `Authorization: Embed <token>`: the
// hottest code of the service, since every keystroke of every shop visitor lands here. It
// has one door, its route: an early answer before routing did not pay on both engines
// (docs/decisions.md). Everything that can be made once per instance (headers, origin sets,
// serialised answers and their tags) is made when the index is built, not here.
import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { TypedApp } from '../http/area.js';
import { ForbiddenError, UnauthorizedError } from '../http/errors.js';
import { hostLabel } from '../http/host-label.js';
import type { EmbedTokens } from './embed-tokens.js';
import type { ServedInstance, TypeaheadRegistry } from './registry.js';
import { SuggestionsQuery } from './schemas.js';
import type { SuggestionAnswer } from './suggestion-answer.js';

const SUGGESTIONS_PATH = '/typeahead/suggestions';
const EMBED_SCHEME = /^embed\s+/i;
const JSON_TYPE = 'application/json; charset=utf-8';

// The hash of the credential last sent on a connection, kept on the connection itself (it
// lives and goes with it). A shop page's browser sends the same header on every keystroke
// over one keep-alive connection, so the HMAC (the largest cost of a request after the
// socket write) is paid once per connection. Only a client's own earlier header is compared
// with its next one, so the comparison reveals nothing about any token; the hash is still
// looked up on every request, so revocation is immediate.
const LAST_CREDENTIAL = Symbol('searchdeck embed credential');

interface RememberingSocket {
  [LAST_CREDENTIAL]?: { header: string; hash: string };
}

/** The hash of an embed credential header, remembered on the connection it came over. */
function tokenHash(socket: object | undefined, header: string, tokens: EmbedTokens): string {
  const remembering = socket as RememberingSocket | undefined;
  const last = remembering?.[LAST_CREDENTIAL];
  if (last !== undefined && last.header === header) return last.hash;
  const token = EMBED_SCHEME.test(header) ? header.replace(EMBED_SCHEME, '').trim() : header.trim();
  const hash = tokens.hash(token);
  if (remembering) remembering[LAST_CREDENTIAL] = { header, hash };
  return hash;
}

type Refusal = 'no-token' | 'unknown-token' | 'other-host';

/** The instance an embed credential belongs to, checked against the host label; else why not. */
function instanceOf(
  registry: TypeaheadRegistry,
  tokens: EmbedTokens,
  req: IncomingMessage,
): ServedInstance | Refusal {
  const header = req.headers.authorization;
  if (header === undefined || header.length === 0) return 'no-token';
  const instance = registry.byTokenHash(tokenHash(req.socket, header, tokens));
  if (instance === undefined) return 'unknown-token';
  const label = hostLabel(req.headers.host);
  if (label !== undefined && label !== instance.id && registry.has(label)) return 'other-host';
  return instance;
}

/**
 * The headers of a suggestions answer, in the order the route has always set them: CORS for
 * the page's origin, then caching. `allowedSomewhere` (the origin is allowed by some
 * instance) is what the refusal of a credential would have let the page read.
 */
function suggestionHeaders(
  instance: ServedInstance,
  origin: string | undefined,
  allowedSomewhere: boolean,
  etag: string,
): Record<string, string> {
  const headers: Record<string, string> = {};
  if (origin !== undefined) {
    if (allowedSomewhere) {
      headers['access-control-allow-origin'] = origin;
      headers.vary = 'Origin';
    }
    if (instance.anyOrigin) headers['access-control-allow-origin'] = '*';
    else if (instance.origins.has(origin)) headers['access-control-allow-origin'] = origin;
    else delete headers['access-control-allow-origin'];
    headers['access-control-expose-headers'] = 'ETag';
  }
  if (!instance.anyOrigin) headers.vary = 'Origin';
  headers['cache-control'] = instance.cacheControl;
  headers.etag = etag;
  return headers;
}

/** Sends a suggestions answer with its caching and CORS headers (304 when the client has it). */
export function sendSuggestions(
  request: FastifyRequest,
  reply: FastifyReply,
  instance: ServedInstance,
  answer: SuggestionAnswer,
  allowedSomewhere: boolean,
) {
  reply.headers(suggestionHeaders(instance, request.headers.origin, allowedSomewhere, answer.etag));
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined && matchesTag(ifNoneMatch, answer.etag)) return reply.code(304).send();
  return reply.type(JSON_TYPE).send(answer.body);
}

/** Weak comparison (RFC 9110): `W/"x"` and `"x"` match; a list or `*` may be given. */
function matchesTag(header: string, etag: string): boolean {
  if (header === etag || header === '*') return true;
  const opaque = etag.slice(2);
  return header.split(',').some((candidate) => {
    const tag = candidate.trim();
    return (tag.startsWith('W/') ? tag.slice(2) : tag) === opaque;
  });
}

/** The Typeahead API's routes: the suggestions (answered early when plain) and their CORS preflight. */
export async function suggestionsRoutes(
  app: TypedApp,
  registry: TypeaheadRegistry,
  tokens: EmbedTokens,
): Promise<void> {
  await app.register(async (scope: TypedApp) => {
    scope.decorateRequest('typeaheadInstance', null);
    scope.get(
      SUGGESTIONS_PATH,
      {
        schema: {
          tags: ['typeahead'],
          operationId: 'getSuggestions',
          summary: 'Suggestions for a prefix, alphabetically (credential: Authorization: Embed <token>)',
          querystring: SuggestionsQuery,
          response: {
            200: Type.Array(Type.String()),
            401: Type.Ref('ErrorBody'),
            403: Type.Ref('ErrorBody'),
          },
        },
        onRequest: (request, reply, done) => {
          const found = instanceOf(registry, tokens, request.raw);
          if (typeof found !== 'string') {
            request.typeaheadInstance = found;
            done();
            return;
          }
          const origin = request.headers.origin;
          // Lets the page read why it was refused.
          if (origin !== undefined && registry.originAllowedSomewhere(origin))
            reply.header('access-control-allow-origin', origin).header('vary', 'Origin');
          done(refusalError(found));
        },
      },
      (request, reply) => {
        const instance = request.typeaheadInstance as ServedInstance;
        const origin = request.headers.origin;
        const allowedSomewhere = origin !== undefined && registry.originAllowedSomewhere(origin);
        const { prefix = '', limit } = request.query;
        const index = registry.index(instance);
        if (!(index instanceof Promise))
          return sendSuggestions(request, reply, instance, index.answer(prefix, limit), allowedSomewhere);
        return index.then((built) =>
          sendSuggestions(request, reply, instance, built.answer(prefix, limit), allowedSomewhere),
        );
      },
    );
    scope.options(SUGGESTIONS_PATH, { schema: { hide: true } }, (request, reply) => {
      const headers = preflightHeaders(registry, request.headers.origin, request.headers.host);
      if (headers !== undefined) reply.headers(headers);
      return reply.code(204).send();
    });
  });
}

function refusalError(refusal: Refusal): Error {
  if (refusal === 'other-host')
    return new ForbiddenError('the embed token does not belong to the instance of this host');
  return new UnauthorizedError(
    refusal === 'no-token'
      ? 'an embed token is required (Authorization: Embed <token>)'
      : 'the embed token is unknown or revoked',
    'Embed',
  );
}

/** A CORS preflight's headers, from the allowed origins of the host's instance, or of any instance. */
function preflightHeaders(
  registry: TypeaheadRegistry,
  origin: string | undefined,
  host: string | undefined,
): Record<string, string> | undefined {
  const label = hostLabel(host);
  const named = label === undefined ? undefined : registry.get(label);
  const allowed =
    origin !== undefined &&
    (named ? named.anyOrigin || named.origins.has(origin) : registry.originAllowedSomewhere(origin));
  if (!allowed) return undefined;
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-methods': 'GET, OPTIONS',
    'access-control-allow-headers': 'Authorization, If-None-Match',
    'access-control-max-age': '600',
    vary: 'Origin',
  };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The typeahead instance of the request's embed token (Typeahead API routes only). */
    typeaheadInstance: ServedInstance | null;
  }
}
