// `GET /api/apps/{app}/query/{profile}` answered before Fastify's routing (http/fast-lane.ts):
// a search-only key of the profile as the node serves it, ids written plainly, and a query the
// endpoint reads without a fault. The lane does what the route does (evaluation, the Solr
// request, the answer with `fusion`); anything else (Basic credentials or a session, a key
// that does not open the profile, a 400 or 404) goes to the route, which answers it. A query
// the lane sent that Solr failed is not sent again: the lane hands the failure to the route,
// which answers it as its own (502 or 504, the common error body).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerJson, type FastLane } from '../http/fast-lane.js';
import { isId } from '../http/schemas.js';
import type { ServedProfiles } from './served-profiles.js';
import type { PreparedQuery, QueryService } from './service.js';

const PREFIX = '/api/apps/';
export const QUERY_ROUTE = '/api/apps/:app/query/:profile';
const BEARER = /^bearer /i;

/** `{app}/query/{profile}` with both ids written plainly (no escapes); else undefined. */
function profileOf(path: string): { app: string; profile: string } | undefined {
  const first = path.indexOf('/');
  if (first < 0 || !path.startsWith('/query/', first)) return undefined;
  const app = path.slice(0, first);
  const profile = path.slice(first + 7);
  if (!isId(app) || !isId(profile) || app.includes('%') || profile.includes('%')) return undefined;
  return { app, profile };
}

/** The lane of shoppers' queries sent with a profile's key; the route stays and answers whatever it passes on. */
export function queryLane(service: QueryService, served: ServedProfiles): FastLane {
  return { path: PREFIX, pattern: QUERY_ROUTE, answer };

  // Declines are synchronous: every other GET under /api/apps/ passes through here on its way to its route.
  function answer(req: IncomingMessage, res: ServerResponse, rest: string): boolean | Promise<boolean> {
    const authorization = req.headers.authorization;
    if (authorization === undefined || !BEARER.test(authorization)) return false;
    const mark = rest.indexOf('?');
    const target = profileOf(mark < 0 ? rest : rest.slice(0, mark));
    if (target === undefined || !served.keyOpens(authorization.slice(7).trim(), target.app, target.profile))
      return false;
    let prepared: PreparedQuery;
    try {
      prepared = service.prepare(
        target.app,
        target.profile,
        new URLSearchParams(mark < 0 ? '' : rest.slice(mark + 1)),
      );
    } catch {
      return false;
    }
    return sent(req, res, prepared);
  }

  async function sent(req: IncomingMessage, res: ServerResponse, prepared: PreparedQuery): Promise<boolean> {
    let body: string;
    try {
      body = await service.send(prepared);
    } catch (failure) {
      service.handOver(req, failure);
      return false;
    }
    answerJson(req, res, body);
    return true;
  }
}
