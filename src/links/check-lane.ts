// The link check answered before Fastify's routing (http/fast-lane.ts): a GET of
// `/api/links/check` with the HTTP Basic credentials of a user this node has verified, and a
// query of subject, object and linkType as the route takes them. The same checks run as on the
// route, in its order: the failure limit of the client, the remembered credentials against the
// stored user, the role. Anything else (unknown or wrong credentials, a blocked client, a
// session, a linkType in another case, an unusual query) goes to the route, which answers it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Kysely } from 'kysely';
import { parseBasic } from '../http/basic-credentials.js';
import { answerJson, type FastLane, plainQuery } from '../http/fast-lane.js';
import type { Database } from '../storage/schema.js';
import type { PasswordCheck } from '../users/admin-auth.js';
import { mayCall } from '../users/roles.js';
import { linkTypes } from './link-types.js';
import type { LinkFilter } from './service.js';
import { checkLinks } from './service.js';

export const CHECK_PATH = '/api/links/check';
const NAMES = new Set(['subject', 'object', 'linkType']);
// The schema's maxLength counts code points; this many UTF-16 units are never more of them.
const MAX_NAME = 512;
const LINK_TYPES = new Set<string>([...linkTypes, '*']);

export interface CheckLaneOptions {
  db: Kysely<Database>;
  passwords: PasswordCheck;
  /** Whether X-Forwarded-For may name the client (then such requests go to the route). */
  trustsProxy: boolean;
}

/** The filter when the query is one the route's schema takes as it is; else undefined. */
function simpleFilter(search: string): LinkFilter | undefined {
  const values = plainQuery(search, NAMES, MAX_NAME);
  if (values === undefined) return undefined;
  const linkType = values.get('linkType');
  if (linkType !== undefined && !LINK_TYPES.has(linkType)) return undefined;
  const filter: LinkFilter = {};
  for (const [name, value] of values) filter[name as keyof LinkFilter] = value as never;
  return filter;
}

/** The lane of plain link checks; the route itself stays and answers whatever it passes on. */
export function linkCheckLane({ db, passwords, trustsProxy }: CheckLaneOptions): FastLane {
  return { path: CHECK_PATH, answer };

  async function answer(req: IncomingMessage, res: ServerResponse, search: string): Promise<boolean> {
    const headers = req.headers;
    if (trustsProxy && headers['x-forwarded-for'] !== undefined) return false;
    const credentials = parseBasic(headers.authorization);
    if (credentials === undefined) return false;
    const filter = simpleFilter(search);
    const client = req.socket.remoteAddress;
    if (filter === undefined || client === undefined) return false;
    const verdict = await passwords.quickVerdict(client, credentials.user, credentials.password, req.socket);
    // The route's access: none declared, so a read any role may make.
    if (!('user' in verdict) || !mayCall(verdict.user, 'GET', undefined, {})) return false;
    answerJson(req, res, (await checkLinks(db, filter)) ? 'true' : 'false');
    return true;
  }
}
