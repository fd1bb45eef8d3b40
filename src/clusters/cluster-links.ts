import type { Kysely } from 'kysely';
import { ConflictError } from '../http/errors.js';
import { appObject, checkLinks, listLinks, putLink } from '../links/service.js';
import type { Database } from '../storage/schema.js';

// What clusters ask of the link graph, all through the Links service (never its tables).

const LINK_ORIGINATOR = 'search-clusters';
const LINKS_PER_PAGE = 1000;
// Enough to act on in a message; the answer's details carry up to MAX_DEPENDANTS names.
const DEPENDANTS_NAMED = 5;
const MAX_DEPENDANTS = 1000;

/** A cluster's name as an end of links. */
export function clusterObject(id: string): string {
  return `search-cluster:${id}`;
}

/** Whether a link puts the cluster `inContextOf` the app. */
export function isInApp(db: Kysely<Database>, id: string, app: string): Promise<boolean> {
  return checkLinks(db, { subject: clusterObject(id), object: appObject(app), linkType: 'inContextOf' });
}

/** Puts the cluster into the app's context (idempotent), inside the caller's transaction when `db` is one. */
export async function addToApp(db: Kysely<Database>, id: string, app: string, now: Date): Promise<void> {
  await putLink(
    db,
    {
      subject: clusterObject(id),
      object: appObject(app)!,
      linkType: 'inContextOf',
      originator: LINK_ORIGINATOR,
    },
    now,
  );
}

/** The ids of the clusters in the app's context. */
export async function clusterIdsInApp(db: Kysely<Database>, app: string): Promise<string[]> {
  const prefix = clusterObject('');
  const ids: string[] = [];
  for (let offset = 0; ; offset += LINKS_PER_PAGE) {
    const links = await listLinks(
      db,
      { object: appObject(app), linkType: 'inContextOf' },
      { limit: LINKS_PER_PAGE, offset },
    );
    for (const { subject } of links) if (subject.startsWith(prefix)) ids.push(subject.slice(prefix.length));
    if (links.length < LINKS_PER_PAGE) return ids;
  }
}

/** Throws a 409 naming what `dependsOn` the cluster (in either written direction), if anything does. */
export async function assertNothingDependsOn(db: Kysely<Database>, id: string): Promise<void> {
  const links = await listLinks(
    db,
    { object: clusterObject(id), linkType: 'dependsOn' },
    { limit: MAX_DEPENDANTS, offset: 0 },
  );
  const dependants = links.map((link) => link.subject);
  if (dependants.length === 0) return;
  const one = dependants.length === 1;
  const named = dependants.slice(0, DEPENDANTS_NAMED).join(', ');
  const more =
    one || dependants.length <= DEPENDANTS_NAMED ? '' : ` and ${dependants.length - DEPENDANTS_NAMED} more`;
  throw new ConflictError(
    `search cluster ${id} is still needed: ${named}${more} ${one ? 'depends' : 'depend'} on it; delete ${one ? 'that' : 'those'} first, or use ?force=true`,
    { dependants },
  );
}
