import type { FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError, UnauthorizedError } from '../http/errors.js';
import { hostLabel } from '../http/host-label.js';
import type { EmbedTokens } from './embed-tokens.js';
import type { ServedInstance, TypeaheadRegistry } from './registry.js';
import type { SuggestionIndex } from './suggestion-index.js';

// The hottest code of the service: every keystroke of every shop visitor lands here.
// Everything that can be made once per instance (headers, origin sets, serialised
// answers and their tags) is made when the index is built, not here.

const EMBED_SCHEME = /^embed\s+/i;
export const JSON_TYPE = 'application/json; charset=utf-8';

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
export function tokenHash(socket: object | undefined, header: string, tokens: EmbedTokens): string {
  const remembering = socket as RememberingSocket | undefined;
  const last = remembering?.[LAST_CREDENTIAL];
  if (last !== undefined && last.header === header) return last.hash;
  const token = EMBED_SCHEME.test(header) ? header.replace(EMBED_SCHEME, '').trim() : header.trim();
  const hash = tokens.hash(token);
  if (remembering) remembering[LAST_CREDENTIAL] = { header, hash };
  return hash;
}

/** The instance a request's embed token belongs to, checked against the host label; throws 401/403. */
export function authenticate(
  request: FastifyRequest,
  reply: FastifyReply,
  registry: TypeaheadRegistry,
  tokens: EmbedTokens,
): ServedInstance {
  const header = request.headers.authorization;
  const origin = request.headers.origin;
  if (origin !== undefined && registry.originAllowedSomewhere(origin)) {
    // Lets the page read why it was refused; successful answers set their instance's own.
    reply.header('access-control-allow-origin', origin).header('vary', 'Origin');
  }
  if (header === undefined || header.length === 0) {
    throw new UnauthorizedError('an embed token is required (Authorization: Embed <token>)', 'Embed');
  }
  const instance = registry.byTokenHash(tokenHash(request.raw.socket, header, tokens));
  if (instance === undefined) throw new UnauthorizedError('the embed token is unknown or revoked', 'Embed');
  const label = hostLabel(request.headers.host);
  if (label !== undefined && label !== instance.id && registry.has(label)) {
    throw new ForbiddenError('the embed token does not belong to the instance of this host');
  }
  return instance;
}

/** Sends the suggestions answer with its caching and CORS headers (304 when the client has it). */
export function sendSuggestions(
  request: FastifyRequest,
  reply: FastifyReply,
  instance: ServedInstance,
  index: SuggestionIndex,
  prefix: string,
  limit: number,
): FastifyReply {
  const answer = index.answer(prefix, limit);
  const origin = request.headers.origin;
  if (origin !== undefined) {
    if (instance.anyOrigin) reply.header('access-control-allow-origin', '*');
    else if (instance.origins.has(origin)) reply.header('access-control-allow-origin', origin);
    else reply.removeHeader('access-control-allow-origin');
    reply.header('access-control-expose-headers', 'ETag');
  }
  if (!instance.anyOrigin) reply.header('vary', 'Origin');
  reply.header('cache-control', instance.cacheControl).header('etag', answer.etag);
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

/** Answers a CORS preflight from the allowed origins of the host's instance, or of any instance. */
export function answerPreflight(request: FastifyRequest, reply: FastifyReply, registry: TypeaheadRegistry) {
  const origin = request.headers.origin;
  const label = hostLabel(request.headers.host);
  const named = label === undefined ? undefined : registry.get(label);
  const allowed =
    origin !== undefined &&
    (named ? named.anyOrigin || named.origins.has(origin) : registry.originAllowedSomewhere(origin));
  if (allowed) {
    reply.headers({
      'access-control-allow-origin': origin,
      'access-control-allow-methods': 'GET, OPTIONS',
      'access-control-allow-headers': 'Authorization, If-None-Match',
      'access-control-max-age': '600',
      vary: 'Origin',
    });
  }
  return reply.code(204).send();
}
