// Suggestions answered before Fastify's routing, for the requests that make up nearly all of
// the traffic: a plain GET with a known embed token, a prefix and perhaps a limit. Such a
// request needs none of what Fastify does per request (a request and reply object, a child
// logger, the hook chain, schema validation, a nextTick per hook stage), and that machinery
// cost more than the answer itself. The answer is byte for byte the one the route gives
// (headers in the same order); anything else (no or an unknown token, a malformed or unusual
// query, If-None-Match, HTTPS, logging of every request, shutdown) goes to the route as before.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { requestId } from '../http/common-headers.js';
import { hostLabel } from '../http/host-label.js';
import { requestObserver } from '../http/metrics.js';
import { prints } from '../http/request-logging.js';
import { DATA_HEADERS } from '../http/security-headers.js';
import { textProblem } from '../http/well-formed-text.js';
import type { EmbedTokens } from './embed-tokens.js';
import type { TypeaheadRegistry } from './registry.js';
import { DEFAULT_SUGGESTION_LIMIT } from './schemas.js';
import type { SuggestionIndex } from './suggestion-index.js';
import { JSON_TYPE, tokenHash } from './suggestions-http.js';

const PATH = '/typeahead/suggestions';
const MAX_PREFIX = 1000;
const MAX_LIMIT = 5000;
const LIMIT = /^[1-9][0-9]{0,3}$/;
const DATA_HEADER_ENTRIES = Object.entries(DATA_HEADERS);

interface Query {
  prefix: string;
  limit: number;
}

/**
 * The query when it is one the route's schema takes as it is (`prefix` at most once, `limit`
 * a plain integer in range, nothing else), decoded as Fastify's parser decodes it; else
 * undefined and the route decides.
 */
function simpleQuery(search: string): Query | undefined {
  const query: Query = { prefix: '', limit: DEFAULT_SUGGESTION_LIMIT };
  let seenPrefix = false;
  let seenLimit = false;
  for (const pair of search.split('&')) {
    const equals = pair.indexOf('=');
    if (equals < 0) return undefined;
    const name = pair.slice(0, equals);
    const raw = pair.slice(equals + 1);
    if (name === 'prefix' && !seenPrefix) {
      seenPrefix = true;
      let value: string;
      try {
        value = raw.includes('%') || raw.includes('+') ? decodeURIComponent(raw.replace(/\+/g, ' ')) : raw;
      } catch {
        return undefined;
      }
      if (value.length > MAX_PREFIX || textProblem(value) !== undefined) return undefined;
      query.prefix = value;
    } else if (name === 'limit' && !seenLimit && LIMIT.test(raw) && Number(raw) <= MAX_LIMIT) {
      seenLimit = true;
      query.limit = Number(raw);
    } else {
      return undefined;
    }
  }
  return query;
}

export interface FastPathOptions {
  registry: TypeaheadRegistry;
  tokens: EmbedTokens;
  /** The app's metrics, whose request histogram counts these answers too. */
  metrics: Registry;
  /** Counts the requests answered here. */
  counter: { answered: number };
}

/**
 * Puts the fast path in front of the app's request handler. Call once, when the routes are
 * declared; the route itself stays and answers whatever the fast path passes on.
 */
export function installSuggestionsFastPath(
  app: FastifyInstance,
  { registry, tokens, metrics, counter }: FastPathOptions,
): void {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  const observe = requestObserver(metrics);
  // A logger that names no level is Fastify's silent stand-in (`logger: false`).
  const logsEveryRequest = () => app.log.level !== undefined && prints(app.log, 'info');

  /** Answers the request and says true, or says false and leaves it untouched. */
  function answer(req: IncomingMessage, res: ServerResponse): boolean {
    const started = performance.now();
    const url = req.url ?? '';
    if (req.method !== 'GET' || !url.startsWith(PATH)) return false;
    if (url.length > PATH.length && url.charCodeAt(PATH.length) !== 63 /* ? */) return false;
    const headers = req.headers;
    const authorization = headers.authorization;
    if (
      closing ||
      authorization === undefined ||
      authorization.length === 0 ||
      headers.host === undefined ||
      headers['if-none-match'] !== undefined ||
      headers['x-forwarded-proto'] !== undefined ||
      headers['content-length'] !== undefined ||
      headers['transfer-encoding'] !== undefined ||
      headers.expect !== undefined ||
      (req.socket as { encrypted?: boolean }).encrypted ||
      logsEveryRequest()
    ) {
      return false;
    }
    const query = url.length > PATH.length + 1 ? simpleQuery(url.slice(PATH.length + 1)) : undefined;
    if (query === undefined && url.length > PATH.length + 1) return false;
    const instance = registry.byTokenHash(tokenHash(req.socket, authorization, tokens));
    if (instance === undefined) return false;
    const label = hostLabel(headers.host);
    if (label !== undefined && label !== instance.id && registry.has(label)) return false;
    // An index not resident is built by the route, which answers once it is there.
    if (instance.index === undefined) return false;
    const index = registry.index(instance) as SuggestionIndex;
    const { prefix, limit } = query ?? { prefix: '', limit: DEFAULT_SUGGESTION_LIMIT };
    const suggestions = index.answer(prefix, limit);

    // The route's headers, in the order its hooks set them: common, CORS, caching, body.
    const out: Record<string, string> = { 'x-request-id': requestId(headers['x-request-id']) };
    for (const [name, value] of DATA_HEADER_ENTRIES) out[name] = value;
    const origin = headers.origin;
    if (origin !== undefined) {
      if (registry.originAllowedSomewhere(origin)) {
        out['access-control-allow-origin'] = origin;
        out.vary = 'Origin';
      }
      if (instance.anyOrigin) out['access-control-allow-origin'] = '*';
      else if (instance.origins.has(origin)) out['access-control-allow-origin'] = origin;
      else delete out['access-control-allow-origin'];
      out['access-control-expose-headers'] = 'ETag';
    }
    if (!instance.anyOrigin) out.vary = 'Origin';
    out['cache-control'] = instance.cacheControl;
    out.etag = suggestions.etag;
    out['content-type'] = JSON_TYPE;
    out['content-length'] = String(Buffer.byteLength(suggestions.body));
    res.writeHead(200, out);
    res.end(suggestions.body);
    observe(PATH, 'GET', 200, (performance.now() - started) / 1000);
    counter.answered++;
    return true;
  }

  app.addHook('onReady', (done) => {
    const server = app.server;
    const handlers = server.listeners('request') as Array<
      (req: IncomingMessage, res: ServerResponse) => void
    >;
    const [route] = handlers;
    if (handlers.length !== 1 || route === undefined) {
      app.log.warn('typeahead fast path not installed: the server has other request handlers');
      done();
      return;
    }
    server.removeListener('request', route);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (!answer(req, res)) route(req, res);
    });
    done();
  });
}
