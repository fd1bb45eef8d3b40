// `GET /em-rules/evaluate` answered before Fastify's routing (http/fast-lane.ts): one of our
// own bearer tokens, with the rules scope, and a query the route's schema takes as it is
// (`q`, and perhaps `explain`, `segment`, `queryProfile`, `filter`). The same checks run as on
// the route, in its order: the token (signature and expiry, then its client, looked up in
// this node's copy of the studio, the one the evaluation is answered from), its scope, the
// host's studio. Anything else (no token, one of the external issuer, one the copy does not
// hold, a missing scope, a host naming another studio, `at`, an unusual query) goes to the
// route, which answers it and reads the client from the database.
import type { IncomingMessage, ServerResponse } from 'node:http';
import fastJson from 'fast-json-stringify';
import { answerJson, type FastLane, readPlainQuery } from '../http/fast-lane.js';
import { hostLabel } from '../http/host-label.js';
import type { TokenService } from '../oauth/token-service.js';
import type { EvaluationParts } from './evaluation-parts.js';
import { type EvaluateQuery, EvaluationResponse } from './schemas.js';
import type { EvaluationService } from './service.js';

export const EVALUATE_PATH = '/em-rules/evaluate';
const SCOPE = 'commercestudio.rules';
const BEARER = /^bearer /i;
// The schema's longest string (q, a filter); a label is checked against its own bounds below.
const MAX_VALUE = 1000;
const MAX_LABEL = 100;
const MAX_ITEMS = 100;
const FILTER = /^[^:]+:/;
// The route's serializer is built by Fastify from the same schema with the same library.
const serialize = fastJson(EvaluationResponse);

export interface EvaluateLaneOptions {
  tokens: TokenService;
  evaluation: EvaluationService;
  /** The node's copies of the studios, whose clients a token is checked against. */
  studios: EvaluationParts;
  /** Whether X-Forwarded-Host may name the host (then such requests go to the route). */
  trustsProxy: boolean;
}

/** The query when the route's schema takes it as it is (as Fastify's parser reads it); else undefined. */
function simpleQuery(search: string): EvaluateQuery | undefined {
  let q: string | undefined;
  let explain: boolean | undefined;
  const lists: Record<'segment' | 'queryProfile' | 'filter', string[]> = {
    segment: [],
    queryProfile: [],
    filter: [],
  };
  const plain = readPlainQuery(search, MAX_VALUE, (name, value) => {
    if (name === 'q' && q === undefined) q = value;
    else if (name === 'explain' && explain === undefined && (value === 'true' || value === 'false'))
      explain = value === 'true';
    else if ((name === 'segment' || name === 'queryProfile') && value.length > 0 && value.length <= MAX_LABEL)
      lists[name].push(value);
    else if (name === 'filter' && FILTER.test(value)) lists.filter.push(value);
    else return false;
    return true;
  });
  if (!plain || q === undefined) return undefined;
  const query: EvaluateQuery = { q };
  if (explain !== undefined) query.explain = explain;
  for (const name of ['segment', 'queryProfile', 'filter'] as const) {
    const list = lists[name];
    if (list.length > MAX_ITEMS) return undefined;
    if (list.length > 0) query[name] = list;
  }
  return query;
}

/** The lane of plain evaluations; the route itself stays and answers whatever it passes on. */
export function evaluateLane({ tokens, evaluation, studios, trustsProxy }: EvaluateLaneOptions): FastLane {
  return { path: EVALUATE_PATH, answer };

  function answer(req: IncomingMessage, res: ServerResponse, search: string): boolean {
    const headers = req.headers;
    const authorization = headers.authorization;
    if (authorization === undefined || !BEARER.test(authorization)) return false;
    if (trustsProxy && headers['x-forwarded-host'] !== undefined) return false;
    const query = simpleQuery(search);
    if (query === undefined) return false;
    // A refused token is the route's to answer (401, with its challenge).
    const token = tokens.signedToken(authorization.slice(7).trim());
    if (token === undefined || !studios.holds(token.studioId, token.clientId, token.incarnation))
      return false;
    if (!token.scopes.includes(SCOPE)) return false;
    const label = hostLabel(headers.host);
    if (label !== undefined && label !== token.studioId) return false;
    answerJson(req, res, serialize(evaluation.evaluate(token.studioId, query)));
    return true;
  }
}
