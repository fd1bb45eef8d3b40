// Suggestions answered before Fastify's routing (http/fast-lane.ts): a plain GET with a known
// embed token, a prefix and perhaps a limit, which is nearly all of the traffic. Anything else
// (no or an unknown token, a malformed or unusual query, If-None-Match) goes to the route.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { commonLaneHeaders, type FastLane, readPlainQuery } from '../http/fast-lane.js';
import { hostLabel } from '../http/host-label.js';
import type { EmbedTokens } from './embed-tokens.js';
import type { TypeaheadRegistry } from './registry.js';
import { DEFAULT_SUGGESTION_LIMIT } from './schemas.js';
import type { SuggestionIndex } from './suggestion-index.js';
import { JSON_TYPE, tokenHash } from './suggestions-http.js';

export const SUGGESTIONS_PATH = '/typeahead/suggestions';
const MAX_PREFIX = 1000;
const MAX_LIMIT = 5000;
const LIMIT = /^[1-9][0-9]{0,3}$/;

interface Query {
  prefix: string;
  limit: number;
}

/** The query when it is one the route's schema takes as it is (`limit` a plain integer in range); else undefined. */
function simpleQuery(search: string): Query | undefined {
  let prefix: string | undefined;
  let limit: number | undefined;
  const plain = readPlainQuery(search, MAX_PREFIX, (name, value) => {
    if (name === 'prefix' && prefix === undefined) prefix = value;
    else if (name === 'limit' && limit === undefined && LIMIT.test(value) && Number(value) <= MAX_LIMIT)
      limit = Number(value);
    else return false;
    return true;
  });
  return plain ? { prefix: prefix ?? '', limit: limit ?? DEFAULT_SUGGESTION_LIMIT } : undefined;
}

export interface SuggestionsLaneOptions {
  registry: TypeaheadRegistry;
  tokens: EmbedTokens;
}

/** The lane of plain suggestion requests; the route itself stays and answers whatever it passes on. */
export function suggestionsLane({ registry, tokens }: SuggestionsLaneOptions): FastLane {
  return { path: SUGGESTIONS_PATH, answer };

  /** Answers the request and says true, or says false and leaves it untouched. */
  function answer(req: IncomingMessage, res: ServerResponse, search: string): boolean {
    const headers = req.headers;
    const authorization = headers.authorization;
    if (authorization === undefined || authorization.length === 0 || headers['if-none-match'] !== undefined) {
      return false;
    }
    const query = simpleQuery(search);
    if (query === undefined) return false;
    const instance = registry.byTokenHash(tokenHash(req.socket, authorization, tokens));
    if (instance === undefined) return false;
    const label = hostLabel(headers.host);
    if (label !== undefined && label !== instance.id && registry.has(label)) return false;
    // An index not resident is built by the route, which answers once it is there.
    if (instance.index === undefined) return false;
    const index = registry.index(instance) as SuggestionIndex;
    const suggestions = index.answer(query.prefix, query.limit);

    // The route's headers, in the order its hooks set them: common, CORS, caching, body.
    const out = commonLaneHeaders(req);
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
    return true;
  }
}
