// The kinds of object a document carries, in the order an import writes them: what links name
// comes before the links. A new kind is one entry here (and its member in the document schema).
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
  objectKinds.flatMap((kind) => (kind.prefix && kind.exists ? [[kind.prefix, kind.exists] as const] : [])),
);

/** Every kind, links last. */
export const KINDS: ReadonlyArray<ObjectKind<KindKey>> = [
  ...objectKinds,
  linkKind(
    {
      exists(db, name) {
        const colon = name.indexOf(':');
        return managed.get(name.slice(0, colon))?.(db, name.slice(colon + 1));
      },
    },
    [...managed.keys()],
  ),
] as ReadonlyArray<ObjectKind<KindKey>>;
