// An export: which objects it covers, and the document written out as a stream of JSON text,
// the large kinds a page at a time, so an app of any size exports in bounded memory.
import type { Kysely } from 'kysely';
import { listClusters } from '../clusters/service.js';
import { NotFoundError, ValidationError } from '../http/errors.js';
import { appObject, listLinks } from '../links/service.js';
import { listAllProfiles } from '../query/profiles.js';
import type { Database } from '../storage/schema.js';
import { listStudios } from '../studios/service.js';
import { listInstances } from '../typeahead/service.js';
import type { ItemOf, KindKey, ObjectsDeps, Selection } from './kind.js';
import { KINDS } from './kinds/index.js';
import { DOCUMENT_VERSION, OBJECT_TYPES, type ObjectType } from './schemas.js';

export interface ExportRequest {
  app?: string | undefined;
  type?: ObjectType[] | undefined;
  id?: string[] | undefined;
}

const LINKS_PER_PAGE = 1000;

/**
 * The objects an export covers: those in the app's context (`app`), those named (`type` and `id`
 * in pairs), or else every one. A named object that does not exist is a 404.
 */
export async function selectionOf(db: Kysely<Database>, request: ExportRequest): Promise<Selection> {
  const types = request.type ?? [];
  const ids = request.id ?? [];
  if (types.length !== ids.length) {
    throw new ValidationError(
      [{ field: 'id', message: `type and id come in pairs: ${types.length} type, ${ids.length} id` }],
      'invalid-parameter',
    );
  }
  if (request.app !== undefined && types.length > 0) {
    throw new ValidationError(
      [{ field: 'app', message: 'app and type/id select in different ways; give one of them' }],
      'invalid-parameter',
    );
  }
  if (request.app !== undefined) return { app: request.app, ids: await inApp(db, request.app) };
  if (types.length === 0) {
    return {
      ids: {
        'search-cluster': (await listClusters(db)).map((c) => c.id),
        studio: (await listStudios(db)).map((s) => s.id),
        typeahead: (await listInstances(db)).map((i) => i.id),
        'query-profile': (await listAllProfiles(db)).map((p) => `${p.app}/${p.id}`),
      },
    };
  }
  const selected = emptyIds();
  const kindOf = new Map(KINDS.map((kind) => [kind.prefix, kind]));
  for (const [i, type] of types.entries()) {
    const id = ids[i]!;
    if (!(await kindOf.get(type)?.exists?.(db, id))) throw new NotFoundError(`no ${type}:${id}`);
    if (!selected[type].includes(id)) selected[type].push(id);
  }
  return { ids: selected };
}

function emptyIds(): Selection['ids'] {
  return Object.fromEntries(OBJECT_TYPES.map((type) => [type, []])) as unknown as Selection['ids'];
}

/** The managed objects in an app's context, by the `inContextOf` links to `app:{app}`. */
async function inApp(db: Kysely<Database>, app: string): Promise<Selection['ids']> {
  const ids = emptyIds();
  const types = new Set<string>(OBJECT_TYPES);
  for (let offset = 0; ; offset += LINKS_PER_PAGE) {
    const page = await listLinks(
      db,
      { object: appObject(app), linkType: 'inContextOf' },
      { limit: LINKS_PER_PAGE, offset },
    );
    for (const { subject } of page) {
      const colon = subject.indexOf(':');
      const type = subject.slice(0, colon);
      if (types.has(type)) ids[type as ObjectType].push(subject.slice(colon + 1));
    }
    if (page.length < LINKS_PER_PAGE) break;
  }
  for (const type of OBJECT_TYPES) ids[type] = [...new Set(ids[type])].sort();
  return ids;
}

/**
 * The document as JSON text, in pieces: metadata first (the secrets left out are known from the
 * small kinds, read first), then each kind in the document's order, a streamed kind item by item.
 */
export async function* exportDocument(
  db: Kysely<Database>,
  deps: ObjectsDeps,
  selection: Selection,
): AsyncGenerator<string> {
  const read = new Map<KindKey, ItemOf<KindKey>[]>();
  const secretsOmitted: string[] = [];
  for (const kind of KINDS) {
    if (kind.streamed) continue;
    const items: ItemOf<KindKey>[] = [];
    for await (const item of kind.exported(db, selection, deps)) items.push(item);
    read.set(kind.key, items);
    for (const item of items) secretsOmitted.push(...(kind.secretsOf?.(item) ?? []));
  }
  const metadata = {
    exportedAt: deps.now().toISOString(),
    version: DOCUMENT_VERSION,
    secretsOmitted,
    ...(selection.app === undefined ? {} : { app: selection.app }),
  };
  yield `{"metadata":${JSON.stringify(metadata)},"objects":{`;
  for (const [k, kind] of KINDS.entries()) {
    yield `${k === 0 ? '' : ','}${JSON.stringify(kind.key)}:[`;
    const items = read.get(kind.key) ?? kind.exported(db, selection, deps);
    let first = true;
    let batch = '';
    for await (const item of items) {
      batch += (first ? '' : ',') + JSON.stringify(item);
      first = false;
      // Pieces of some kilobytes: fewer, larger writes to the socket.
      if (batch.length > 64 * 1024) {
        yield batch;
        batch = '';
      }
    }
    yield `${batch}]`;
  }
  yield '}}';
}
