// What the Rules and Rewrites pages share: the kinds, the two interfaces' types (a rule or
// a rewrite, as each answers it), and how a rule or rewrite is named. The calls are calls.ts.
import type { components, paths } from '../../api/schema';

export type Rule = components['schemas']['Rule'];
/** A rewrite as the Rewrites interface answers it: no name, and fields of its own. */
export type Rewrite =
  paths['/studios/{studioId}/query-rewrites/{id}']['get']['responses'][200]['content']['application/json'];
/** What the listing and the editor show: a rule or a rewrite. */
export type Entry = Rule | Rewrite;
export type Kind = 'rules' | 'rewrites';

export const TYPES: { rules: Rule['type'][]; rewrites: Rewrite['type'][] } = {
  rules: [
    'blockList',
    'boostList',
    'buryList',
    'pinned',
    'redirect',
    'banner',
    'filterList',
    'boostAttributes',
    'setParams',
    'responseValue',
    'setFacetList',
  ],
  rewrites: ['synonym', 'misspelling', 'phrase', 'headTail', 'removeWords'],
};

/** Whether an entry is a rule (its type is one of the rules'). */
export function isRule(entry: Entry): entry is Rule {
  return TYPES.rules.some((type) => type === entry.type);
}

/** The fields every rule and rewrite has, beside those of its type. */
export const COMMON = new Set([
  'id',
  'externalId',
  'contentType',
  'createdBy',
  'creationDate',
  'lastModifiedBy',
  'lastModified',
  'published',
  'publishState',
  'markedForDeletion',
  'type',
  'name',
  'description',
  'tags',
  'groups',
  'segments',
  'precedence',
  'conditions',
  // A rewrite's start and end (a rule's are in its conditions).
  'effectiveStart',
  'effectiveEnd',
  'deleted',
  'liveContent',
  'conflicts',
  'targetedDocuments',
  'isPendingBulkOperation',
  'platformSyncStatus',
  'fusionSyncStatus',
  'migration',
]);

/** What a row is called: a rule's name; a rewrite (which has none) by its own fields. */
export function titleOf(entry: Entry): string {
  if (isRule(entry) && entry.name) return entry.name;
  const own = kindFields(entry);
  return Object.values(own)
    .filter((v) => v !== null && v !== undefined && v !== '')
    .map((v) => (Array.isArray(v) ? v.join(', ') : String(v)))
    .join(' → ');
}

/** The fields of a rule's or rewrite's own type. */
export function kindFields(entry: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entry).filter(([name]) => !COMMON.has(name)));
}
