// The link check, `GET /api/links/check`: its route's handler answers `checkLinks`, and so
// does its early answer, given (http/early-answers.ts) to a user whose HTTP Basic credentials this node has
// verified. The early answer asks what the route's hooks ask, in their order (the failure
// limit and the remembered credentials through `PasswordCheck.knownUser`, then the role); a request
// that needs more (a password to verify, a session, a refusal) is the route's to answer.
import type { IncomingMessage } from 'node:http';
import type { Kysely } from 'kysely';
import { parseBasic } from '../http/basic-credentials.js';
import type { EarlyEndpoint, EarlyReply } from '../http/early-answers.js';
import type { Database } from '../storage/schema.js';
import type { PasswordCheck } from '../users/admin-auth.js';
import { mayCall } from '../users/roles.js';
import { checkLinks, type LinkFilter } from './service.js';

/** The early answer of link checks. */
export function checkEarly(db: Kysely<Database>, passwords: PasswordCheck): EarlyEndpoint<LinkFilter> {
  return async (req: IncomingMessage, query: LinkFilter): Promise<EarlyReply | undefined> => {
    const credentials = parseBasic(req.headers.authorization);
    const client = req.socket.remoteAddress;
    if (credentials === undefined || client === undefined) return undefined;
    const user = await passwords.knownUser(client, credentials.user, credentials.password, req.socket);
    // The route declares no access of its own: a read any role may make.
    if (user === undefined || !mayCall(user, 'GET', undefined, {})) return undefined;
    return { body: (await checkLinks(db, query)) ? 'true' : 'false' };
  };
}
