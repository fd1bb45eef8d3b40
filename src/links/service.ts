import type { Kysely } from 'kysely';
import { recordChange } from '../history/service.js';
import { NotFoundError, ValidationError } from '../http/errors.js';
import { isId } from '../http/schemas.js';
import type { Database } from '../storage/schema.js';
import { inTransaction } from '../storage/transaction.js';
import { isStoredDirection, type LinkType, reverseOf, selfLinkProblem } from './link-types.js';
import {
  anyLink,
  deleteLinksTouching,
  deleteStoredLink,
  insertLink,
  insertMissingLinks,
  type LinkRow,
  type RowSelection,
  selectAppNames,
  selectLinks,
} from './repository.js';
import type { LinkTable } from './tables.js';

export interface Link {
  subject: string;
  object: string;
  linkType: LinkType;
  originator: string;
  createdAt: string;
}

/** Which links to find; an absent or `*` member matches any. */
export interface LinkFilter {
  subject?: string | undefined;
  object?: string | undefined;
  linkType?: LinkType | '*' | undefined;
}

export interface Page {
  limit: number;
  offset: number;
}

const APP_PREFIX = 'app:';

/** The name an app has as a link end: app-scoped operations work inside `app:{name}`. */
export function appObject(app: string | undefined): string | undefined {
  return app === undefined ? undefined : `${APP_PREFIX}${app}`;
}

/** An app searchdeck knows of (the Fusion Apps API's `id` and `name`; the name is the id). */
export interface App {
  id: string;
  name: string;
}

/**
 * The apps named in the link graph, in id order. An app exists through its links (an
 * object put in its context, a cluster or profile created under it); a name that could not
 * be addressed as `/api/apps/{app}` is not listed.
 */
export async function listApps(db: Kysely<Database>): Promise<App[]> {
  return (await selectAppNames(db))
    .filter((name) => name.startsWith(APP_PREFIX))
    .map((name) => name.slice(APP_PREFIX.length))
    .filter(isId)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((id) => ({ id, name: id }));
}

const MAX_DEPTH = 100;
const FRONTIER_CHUNK = 500;

function wildcard<T extends string>(value: T | '*' | undefined): T | undefined {
  return value === undefined || value === '*' ? undefined : (value as T);
}

/**
 * The stored rows that make a filter true, as the directions to read them in: forward
 * (as stored) and reverse (stored the other way round). This is where reversibility lives.
 */
function selectionsFor(filter: LinkFilter): RowSelection[] {
  const subject = wildcard(filter.subject);
  const object = wildcard(filter.object);
  const linkType = wildcard(filter.linkType);
  if (subject === undefined && object === undefined && linkType === undefined) {
    return [{ reverse: false, asGiven: true }];
  }
  const selections: RowSelection[] = [];
  if (linkType === undefined || isStoredDirection(linkType)) {
    selections.push({ reverse: false, subject, object, types: linkType && [linkType] });
  }
  const reverse = linkType && reverseOf(linkType);
  if (linkType === undefined || (reverse && isStoredDirection(reverse))) {
    selections.push({ reverse: true, subject, object, types: reverse && [reverse] });
  }
  return selections;
}

function toLink(row: LinkRow): Link {
  return {
    subject: row.subject,
    object: row.object,
    linkType: row.link_type as LinkType,
    originator: row.originator,
    createdAt: row.created_at,
  };
}

/** Whether any relationship matches the filter (in either direction). */
export async function checkLinks(db: Kysely<Database>, filter: LinkFilter, app?: string): Promise<boolean> {
  return anyLink(db, selectionsFor(filter), appObject(app));
}

/** One page of the relationships matching the filter, each written in the direction that matches. */
export async function listLinks(
  db: Kysely<Database>,
  filter: LinkFilter,
  page: Page,
  app?: string,
): Promise<Link[]> {
  const rows = await selectLinks(db, selectionsFor(filter), { ...page, appObject: appObject(app) });
  return rows.map(toLink);
}

/** Everything `subject` reaches by following `linkType` any number of hops, each object once. */
export async function listTransitive(
  db: Kysely<Database>,
  filter: LinkFilter,
  page: Page,
  app?: string,
): Promise<Link[]> {
  const subject = wildcard(filter.subject);
  const linkType = wildcard(filter.linkType);
  const missing = [
    ...(subject === undefined
      ? [{ field: 'subject', message: 'subject is required when transitive=true' }]
      : []),
    ...(linkType === undefined
      ? [{ field: 'linkType', message: 'linkType is required when transitive=true' }]
      : []),
  ];
  if (missing.length > 0 || subject === undefined || linkType === undefined) {
    throw new ValidationError(missing, 'invalid-parameter');
  }
  const wanted = page.offset + page.limit;
  const found: Link[] = [];
  const seen = new Set([subject]);
  let frontier = [subject];
  for (let depth = 0; depth < MAX_DEPTH && frontier.length > 0 && found.length < wanted; depth++) {
    const next: string[] = [];
    for (let i = 0; i < frontier.length; i += FRONTIER_CHUNK) {
      const hop = await neighbours(db, frontier.slice(i, i + FRONTIER_CHUNK), linkType, app);
      for (const link of hop) {
        if (seen.has(link.object)) continue;
        seen.add(link.object);
        next.push(link.object);
        found.push({ ...link, subject });
      }
    }
    frontier = next;
  }
  return found.slice(page.offset, wanted);
}

async function neighbours(db: Kysely<Database>, subjects: string[], linkType: LinkType, app?: string) {
  const pages = await Promise.all(
    subjects.map((subject) =>
      listLinks(db, { subject, linkType }, { limit: Number.MAX_SAFE_INTEGER, offset: 0 }, app),
    ),
  );
  return pages.flat();
}

/** The links a listing asks for: those matching the filter, or (`transitive`) all it reaches. */
export function findLinks(
  db: Kysely<Database>,
  filter: LinkFilter,
  options: { transitive: boolean; page: Page },
  app?: string,
): Promise<Link[]> {
  const find = options.transitive ? listTransitive : listLinks;
  return find(db, filter, options.page, app);
}

/** Outgoing links of a resource; `exclusive` keeps those whose object nothing else owns. */
export async function directedLinks(
  db: Kysely<Database>,
  resource: string,
  exclusive: boolean,
  page: Page,
  app?: string,
): Promise<Link[]> {
  const rows = await selectLinks(db, selectionsFor({ subject: resource }), {
    ...page,
    appObject: appObject(app),
    exclusiveOf: exclusive ? resource : undefined,
  });
  return rows.map(toLink);
}

export interface NewLink {
  subject: string;
  object: string;
  linkType: LinkType;
  originator?: string | undefined;
}

/** The stored form of a relationship: reversible types are kept in one direction only. */
function storedKey(subject: string, object: string, linkType: LinkType) {
  if (isStoredDirection(linkType)) return { subject, object, link_type: linkType, reversed: false };
  return { subject: object, object: subject, link_type: reverseOf(linkType)!, reversed: true };
}

/** The row of a relationship as it is stored (in its stored direction). */
function linkRow(link: NewLink, now: Date): LinkTable {
  const key = storedKey(link.subject, link.object, link.linkType);
  return {
    subject: key.subject,
    object: key.object,
    link_type: key.link_type,
    originator: link.originator ?? 'unspecified',
    given_reversed: key.reversed ? 1 : 0,
    created_at: now.toISOString(),
  };
}

/**
 * Creates a relationship unless it exists (in either direction); answers it as asked for,
 * with the stored originator and creation time. In an app's scope both ends also join the app.
 * With an `actor` (a request of the Links API) the change is recorded in the history; a link
 * another change makes as its part is in that change's event.
 */
export async function putLink(
  db: Kysely<Database>,
  link: NewLink,
  now: Date,
  app?: string,
  actor?: string,
): Promise<Link> {
  const problem = selfLinkProblem(link);
  if (problem) throw new ValidationError([problem]);
  const { linkType } = link;
  return inTransaction(db, async (trx) => {
    const stored = await insertLink(trx, linkRow(link, now));
    const context = appObject(app);
    if (context) {
      // Both ends in name order: concurrent puts naming the same ends lock their context rows alike.
      for (const end of [...new Set([link.subject, link.object])].sort()) {
        if (end.startsWith('app:')) continue;
        await insertLink(trx, {
          subject: end,
          object: context,
          link_type: 'inContextOf',
          originator: link.originator ?? 'unspecified',
          given_reversed: 0,
          created_at: now.toISOString(),
        });
      }
    }
    const answer = {
      subject: link.subject,
      object: link.object,
      linkType,
      originator: stored.originator,
      createdAt: stored.created_at,
    };
    if (actor !== undefined)
      await recordChange(trx, linkEvent(actor, 'put', answer, { after: answer, at: now }));
    return answer;
  });
}

/**
 * Creates the relationships that are not stored yet (in either direction), a chunk of them per
 * statement, for writers of many links at once (an import). Answers, per link in the order
 * given, whether it was created: false for one stored already or written earlier in the list.
 * Records no history (the caller's change does) and puts nothing in an app's context.
 */
export async function putLinks(db: Kysely<Database>, links: NewLink[], now: Date): Promise<boolean[]> {
  for (const link of links) {
    const problem = selfLinkProblem(link);
    if (problem) throw new ValidationError([problem]);
  }
  const rows = new Map<string, LinkTable>();
  for (const link of links) {
    const id = linkKey(link);
    if (!rows.has(id)) rows.set(id, linkRow(link, now));
  }
  // In key order: concurrent writers of overlapping links wait for each other instead of deadlocking.
  const sorted = [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
  const inserted = await inTransaction(db, (trx) => insertMissingLinks(trx, sorted));
  const created = new Set(inserted.map((row) => JSON.stringify([row.subject, row.link_type, row.object])));
  // The first of a relationship's spellings in the list takes its creation; a later one finds it made.
  return links.map((link) => created.delete(linkKey(link)));
}

function linkEvent(
  actor: string,
  action: string,
  link: NewLink,
  values: { after?: unknown; before?: unknown; at?: Date },
) {
  return {
    actor,
    action,
    object: `link:${link.subject} ${link.linkType} ${link.object}`,
    summary: `${action} link ${link.subject} ${link.linkType} ${link.object}`,
    ...values,
  };
}

/** Deletes a relationship through either of its directions; 404 when there is none. */
export async function deleteLink(
  db: Kysely<Database>,
  link: NewLink,
  app?: string,
  actor?: string,
): Promise<void> {
  const problem = selfLinkProblem(link);
  if (problem) throw new ValidationError([problem], 'invalid-parameter');
  const { linkType } = link;
  const visible = await checkLinks(db, link, app);
  const key = storedKey(link.subject, link.object, linkType);
  await inTransaction(db, async (trx) => {
    if (!visible || !(await deleteStoredLink(trx, key))) {
      throw new NotFoundError(`no link ${link.subject} ${linkType} ${link.object}`);
    }
    if (actor !== undefined) await recordChange(trx, linkEvent(actor, 'delete', link, { before: link }));
  });
}

/** Removes every link of an object (when the object itself goes away). */
export async function removeLinksOf(db: Kysely<Database>, name: string): Promise<number> {
  return deleteLinksTouching(db, name);
}

/** One spelling of a relationship whichever direction it is written in (the same for both). */
export function linkKey(link: Pick<Link, 'subject' | 'object' | 'linkType'>): string {
  const key = storedKey(link.subject, link.object, link.linkType);
  return JSON.stringify([key.subject, key.link_type, key.object]);
}
