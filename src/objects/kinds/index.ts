// The kinds of object a document carries, in the order an import writes them: what links name
// comes before the links. A new kind is one entry here (and its member in the document schema).
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';
import type { KindKey, ObjectKind } from '../kind.js';
import { clusterKind } from './clusters.js';
import { linkKind } from './links.js';
import { queryProfileKind } from './query-profiles.js';
import { rewriteKind } from './rewrites.js';
import { ruleKind } from './rules.js';
import { studioKind } from './studios.js';
import { typeaheadKind } from './typeahead.js';

const objectKinds = [
  clusterKind,
  studioKind,
  ruleKind,
  rewriteKind,
  typeaheadKind,
  // After the clusters, studios and typeahead instances a profile depends on.
  queryProfileKind,
];

const managed = new Map(
  objectKinds.flatMap((kind) => (kind.prefix && kind.exists ? [[kind.prefix, kind] as const] : [])),
);

/** Of these names of managed objects (`studio:acme`), those that exist: per kind, a batch at a time. */
async function present(db: Kysely<Database>, names: string[]): Promise<Set<string>> {
  const idsOf = new Map<string, string[]>();
  for (const name of names) {
    const colon = name.indexOf(':');
    const prefix = name.slice(0, colon);
    const ids = idsOf.get(prefix) ?? [];
    ids.push(name.slice(colon + 1));
    idsOf.set(prefix, ids);
  }
  const found = new Set<string>();
  for (const [prefix, ids] of idsOf) {
    const kind = managed.get(prefix)!;
    // A kind without a batched read is one whose objects are few: its distinct ids one by one.
    const existing = kind.present ? await kind.present(db, ids) : await eachExisting(db, kind, ids);
    for (const id of existing) found.add(`${prefix}:${id}`);
  }
  return found;
}

async function eachExisting(db: Kysely<Database>, kind: ObjectKind<KindKey>, ids: string[]) {
  const existing = new Set<string>();
  for (const id of ids) if (await kind.exists?.(db, id)) existing.add(id);
  return existing;
}

/** Every kind, links last. */
export const KINDS: ReadonlyArray<ObjectKind<KindKey>> = [
  ...objectKinds,
  linkKind({ present }, [...managed.keys()]),
] as ReadonlyArray<ObjectKind<KindKey>>;
