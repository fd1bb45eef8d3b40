// Links among the exported objects (and to the app and other names searchdeck does not manage).
// Imported last, once the objects they name are written: a link to a managed object that is
// neither in the document nor present is refused, naming every such end.
import type { Kysely } from 'kysely';
import { ValidationError } from '../../http/errors.js';
import { appObject, type Link, linkKey, listLinks, putLinks } from '../../links/service.js';
import { existingRules } from '../../rules/rule-transfer.js';
import type { Database } from '../../storage/schema.js';
import type { ItemOf, ObjectKind, Selection } from '../kind.js';
import { record } from '../kind.js';

type LinkItem = ItemOf<'links'>;

const PAGE = 1000;

/** The link ends searchdeck manages objects of. */
export interface ManagedEnds {
  /** Of these names of managed objects, those that exist (read a batch at a time). */
  present(db: Kysely<Database>, names: string[]): Promise<Set<string>>;
}

const linkName = (link: LinkItem) => `link:${link.subject} ${link.linkType} ${link.object}`;

/** The links kind, checking ends through the kinds that own them. */
export function linkKind(managedEnds: ManagedEnds, managedPrefixes: readonly string[]): ObjectKind<'links'> {
  const managed = (end: string) => managedPrefixes.some((prefix) => end.startsWith(`${prefix}:`));
  return {
    key: 'links',
    nameOf: linkName,
    async *exported(db, selection) {
      const names = selectedNames(selection);
      const found = new Map<string, LinkItem>();
      for (const name of names) {
        for (const filter of [{ subject: name }, { object: name }]) {
          for (const link of await allLinks(db, filter)) {
            // One spelling per link, the one it is stored in, whichever end found it.
            const key = linkKey(link);
            const [subject, linkType, object] = JSON.parse(key) as [string, LinkItem['linkType'], string];
            if (!found.has(key)) found.set(key, { subject, object, linkType, originator: link.originator });
          }
        }
      }
      const studios = new Set(selection.ids.studio);
      const kept: LinkItem[] = [];
      for (const link of found.values()) {
        if ((await travels(db, link.subject)) && (await travels(db, link.object))) kept.push(link);
      }
      kept.sort((a, b) => (linkKey(a) < linkKey(b) ? -1 : linkKey(a) > linkKey(b) ? 1 : 0));
      yield* kept;

      // An end travels when it is exported, not managed here, or a rule of an exported studio.
      async function travels(db: Kysely<Database>, end: string): Promise<boolean> {
        if (names.has(end) || !managed(end)) return true;
        if (!end.startsWith('rule:')) return false;
        const studio = (await existingRules(db, [end.slice('rule:'.length)])).get(end.slice('rule:'.length));
        return studio !== undefined && studios.has(studio);
      }
    },
    async existing() {
      // A link that exists is no conflict: putting it again changes nothing.
      return [];
    },
    async write(run, items) {
      const ends = new Set(items.flatMap((link) => [link.subject, link.object]).filter(managed));
      const present = await managedEnds.present(run.db, [...ends]);
      const missing = [...ends].filter((end) => !present.has(end));
      if (missing.length > 0) {
        throw new ValidationError(
          missing.map((end) => ({
            field: 'objects.links',
            message: `a link names ${end}, which is neither in the document nor present`,
          })),
        );
      }
      const created = await putLinks(run.db, items, run.now);
      for (const [i, link] of items.entries()) record(run, linkName(link), created[i] ? 'create' : 'skip');
    },
  };
}

function selectedNames(selection: Selection): Set<string> {
  const names = new Set<string>();
  const app = appObject(selection.app);
  if (app) names.add(app);
  for (const [type, ids] of Object.entries(selection.ids)) for (const id of ids) names.add(`${type}:${id}`);
  return names;
}

async function allLinks(
  db: Kysely<Database>,
  filter: { subject?: string; object?: string },
): Promise<Link[]> {
  const links: Link[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await listLinks(db, filter, { limit: PAGE, offset });
    links.push(...page);
    if (page.length < PAGE) return links;
  }
}
