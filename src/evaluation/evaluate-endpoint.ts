// `GET /em-rules/evaluate` with a bearer token: what the live rules and rewrites do to a
// shopper's query. Both doors, the route and its early answer (http/early-answers.ts), check
// the token the same way: its signature and times, then its client in this node's copy of
// the studio (the copy the evaluation is answered from; `vouchedByCopy`). The route goes on
// to the database for a token the copy does not vouch for (one of the external issuer, a
// client created on another node a moment ago) and answers refusals; the early answer leaves
// all of that to it, and a host naming another studio too.
import type { EarlyEndpoint } from '../http/early-answers.js';
import { hostLabel } from '../http/host-label.js';
import type { VouchedToken } from '../oauth/bearer-auth.js';
import type { TokenService } from '../oauth/token-service.js';
import type { EvaluationParts } from './evaluation-parts.js';
import type { EvaluateQuery } from './schemas.js';
import type { EvaluationService } from './service.js';

export const EVALUATE_PATH = '/em-rules/evaluate';
export const RULES_SCOPE = 'commercestudio.rules';
const BEARER = /^bearer /i;

/** A token's actor and scopes, when this node's copy of its studio holds its client. */
export function vouchedByCopy(tokens: TokenService, parts: EvaluationParts): VouchedToken {
  return (token) => {
    const signed = tokens.signedToken(token);
    if (signed === undefined) return undefined;
    const clientName = parts.heldClient(signed.studioId, signed.clientId, signed.incarnation);
    if (clientName === undefined) return undefined;
    return { actor: { studioId: signed.studioId, clientName }, scopes: signed.scopes };
  };
}

/** The early answer of evaluations whose token the copy vouches for, with the scope, on the studio's host. */
export function evaluateEarly(
  vouch: VouchedToken,
  evaluation: EvaluationService,
): EarlyEndpoint<EvaluateQuery> {
  return (req, query) => {
    const authorization = req.headers.authorization;
    if (authorization === undefined || !BEARER.test(authorization)) return undefined;
    const claims = vouch(authorization.slice(7).trim());
    if (claims === undefined || !claims.scopes.includes(RULES_SCOPE)) return undefined;
    const { studioId } = claims.actor;
    const label = hostLabel(req.headers.host);
    if (label !== undefined && label !== studioId) return undefined;
    return { value: evaluation.evaluate(studioId, query) };
  };
}
