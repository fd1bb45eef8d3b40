// Query profiles: app-scoped, linked to the cluster, studio and typeahead instance they use
// (so the links area's dependency check refuses deleting a cluster a profile uses), and
// their search-only keys.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import { getCluster } from '../clusters/service.js';
import { experimentExists } from '../experiments/service.js';
import { SYSTEM_ACTOR } from '../history/actor.js';
import { recordChange } from '../history/service.js';
import { ConflictError, type FieldError, NotFoundError, ValidationError } from '../http/errors.js';
import { appObject, putLink, removeLinksOf } from '../links/service.js';
import type { Database } from '../storage/schema.js';
import { inTransaction } from '../storage/transaction.js';
import { holdStudio, type StudioUsers } from '../studios/service.js';
import { getInstance } from '../typeahead/service.js';
import * as repository from './repository.js';
import type { NewQueryKey, QueryKey, QueryProfile, QueryProfileBody } from './schemas.js';
import { isForbiddenParam } from './shopper-params.js';
import { isPlainField } from './solr-syntax.js';
import type { QueryProfileTable } from './tables.js';

const LINK_ORIGINATOR = 'query-profiles';
export const DEFAULT_TIMEOUT_MS = 5000;
const KEY_PREFIX = 'sdq_';
/** Fusion's names of the query parameters that carry the shopper's id and session. */
export const DEFAULT_SHOPPER_PARAMS = { userParam: 'user_id', sessionParam: 'session' } as const;
/** The endpoint's own parameters, which cannot also carry a shopper's id or session. */
const ENDPOINT_PARAMS = new Set(['q', 'segment', 'staging']);

/** A profile's name as an end of links. */
export function profileObject(app: string, id: string): string {
  return `query-profile:${app}/${id}`;
}

type Settings = Omit<QueryProfile, 'id' | 'searchCluster' | 'createdAt' | 'updatedAt'>;

export function toProfile(row: QueryProfileTable): QueryProfile {
  const settings = JSON.parse(row.settings) as Settings;
  return {
    id: row.id,
    searchCluster: row.search_cluster,
    ...settings,
    // Profiles stored before these settings existed: no origin, Fusion's parameter names.
    allowedOrigins: settings.allowedOrigins ?? [],
    signals: settings.signals ?? { ...DEFAULT_SHOPPER_PARAMS },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function listProfiles(db: Kysely<Database>, app: string): Promise<QueryProfile[]> {
  return (await repository.selectProfiles(db, app)).map(toProfile);
}

/** Every profile of every app (an export of everything). */
export async function listAllProfiles(db: Kysely<Database>): Promise<Array<QueryProfile & { app: string }>> {
  return (await repository.selectAllProfiles(db)).map((row) => ({ app: row.app, ...toProfile(row) }));
}

/** The profiles that name a studio, as a studio's delete names them. */
export const profilesUsingStudio: StudioUsers = {
  async usersOf(db, studioId) {
    return (await repository.selectAllProfiles(db))
      .filter((row) => toProfile(row).studio === studioId)
      .map((row) => `query profile ${row.app}/${row.id}`);
  },
};

/** Whether the profile exists. */
export async function profileExists(db: Kysely<Database>, app: string, id: string): Promise<boolean> {
  return (await repository.selectProfile(db, app, id)) !== undefined;
}

export async function getProfile(db: Kysely<Database>, app: string, id: string): Promise<QueryProfile> {
  const row = await repository.selectProfile(db, app, id);
  if (!row) throw notFound(app, id);
  return toProfile(row);
}

/** How a write was asked for: who makes it, and whether the cluster must already be in the app. */
export interface WriteOptions {
  actor?: string;
  /**
   * An objects import writes profiles before the links that put their clusters in the app's
   * context: it asks only that the cluster exists (the document's links follow in the same
   * transaction).
   */
  clusterInAnyApp?: boolean;
  /** The history event's action and summary, when the write is part of another change. */
  action?: string;
  summary?: string;
}

/** Creates (`create`) or creates-or-replaces (`put`) a profile, with its links and its history event. */
export async function writeProfile(
  db: Kysely<Database>,
  app: string,
  id: string,
  body: QueryProfileBody,
  mode: 'create' | 'put',
  now: Date,
  options: WriteOptions = {},
): Promise<QueryProfile> {
  const at = now.toISOString();
  return inTransaction(db, async (trx) => {
    // Checked in the transaction that writes: a studio's delete at the same moment either
    // waits for this commit and finds the profile, or comes first and fails the check.
    await checkReferences(trx, app, body, options.clusterInAnyApp === true);
    const experiment = await experimentOf(trx, app, id, body, options.clusterInAnyApp === true);
    const settings = settingsOf(body, experiment);
    const stored = await repository.selectProfile(trx, app, id);
    if (stored && mode === 'create')
      throw ConflictError.taken('id', `a query profile with id ${id} exists already in app ${app}`);
    const row: QueryProfileTable = {
      app,
      id,
      search_cluster: body.searchCluster,
      settings: JSON.stringify(settings),
      created_at: stored?.created_at ?? at,
      updated_at: at,
    };
    if (mode === 'create') {
      if (!(await repository.insertProfile(trx, row))) {
        throw ConflictError.taken('id', `a query profile with id ${id} exists already in app ${app}`);
      }
    } else await repository.upsertProfile(trx, row);
    const subject = profileObject(app, id);
    await removeLinksOf(trx, subject);
    const link = (object: string, linkType: 'inContextOf' | 'dependsOn') =>
      putLink(trx, { subject, object, linkType, originator: LINK_ORIGINATOR }, now);
    await link(appObject(app)!, 'inContextOf');
    await link(`search-cluster:${body.searchCluster}`, 'dependsOn');
    if (body.studio !== undefined) await link(`studio:${body.studio}`, 'dependsOn');
    if (body.typeahead !== undefined) await link(`typeahead:${body.typeahead}`, 'dependsOn');
    const after = toProfile(row);
    const action = stored ? 'update' : 'create';
    await recordChange(trx, {
      actor: options.actor ?? SYSTEM_ACTOR,
      action: options.action ?? action,
      object: subject,
      summary: options.summary ?? `${action} query profile ${id} of app ${app}`,
      ...(stored ? { before: toProfile(stored) } : {}),
      after,
      at: now,
    });
    return after;
  });
}

/** What a profile stores besides its id, cluster and times: the body's settings, defaults filled in. */
function settingsOf(body: QueryProfileBody, experiment: string | undefined): Settings {
  return {
    collection: body.collection,
    ...(body.studio === undefined ? {} : { studio: body.studio }),
    ...(body.typeahead === undefined ? {} : { typeahead: body.typeahead }),
    defaults: body.defaults ?? {},
    allowedParams: [...new Set(body.allowedParams ?? [])],
    ...(body.sortFields === undefined ? {} : { sortFields: [...new Set(body.sortFields)] }),
    ...(body.returnFields === undefined ? {} : { returnFields: [...new Set(body.returnFields)] }),
    logSearches: body.logSearches ?? true,
    timeoutMs: body.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ...(body.display === undefined ? {} : { display: body.display }),
    allowedOrigins: [...new Set(body.allowedOrigins ?? [])],
    signals: { ...DEFAULT_SHOPPER_PARAMS, ...body.signals },
    ...(experiment === undefined ? {} : { experiment }),
    ...(body.rewrites === undefined ? {} : { rewrites: body.rewrites }),
  };
}

export async function deleteProfile(
  db: Kysely<Database>,
  app: string,
  id: string,
  now: Date,
  actor: string = SYSTEM_ACTOR,
): Promise<void> {
  await inTransaction(db, async (trx) => {
    const stored = await repository.selectProfile(trx, app, id);
    if (!stored || !(await repository.deleteProfile(trx, app, id))) throw notFound(app, id);
    await removeLinksOf(trx, profileObject(app, id));
    await recordChange(trx, {
      actor,
      action: 'delete',
      object: profileObject(app, id),
      summary: `delete query profile ${id} of app ${app}, its keys and links`,
      before: toProfile(stored),
      at: now,
    });
  });
}

/** A new search-only key of a profile; the key itself is in this answer only. */
export async function createKey(
  db: Kysely<Database>,
  app: string,
  profileId: string,
  now: Date,
  actor: string = SYSTEM_ACTOR,
): Promise<NewQueryKey> {
  const id = randomBytes(8).toString('hex');
  const secret = randomBytes(24).toString('base64url');
  const createdAt = now.toISOString();
  await inTransaction(db, async (trx) => {
    await getProfile(trx, app, profileId);
    await repository.insertKey(trx, {
      id,
      app,
      profile_id: profileId,
      secret_hash: hashOf(secret),
      created_at: createdAt,
    });
    // The key's id only: never the key, nor its hash.
    await recordChange(trx, keyEvent(actor, 'create-key', app, profileId, id, now));
  });
  return { id, key: `${KEY_PREFIX}${id}_${secret}`, createdAt };
}

export async function listKeys(db: Kysely<Database>, app: string, profileId: string): Promise<QueryKey[]> {
  await getProfile(db, app, profileId);
  return (await repository.selectKeys(db, app, profileId)).map((row) => ({
    id: row.id,
    createdAt: row.created_at,
  }));
}

export async function revokeKey(
  db: Kysely<Database>,
  app: string,
  profileId: string,
  keyId: string,
  now: Date,
  actor: string = SYSTEM_ACTOR,
): Promise<void> {
  await inTransaction(db, async (trx) => {
    if (!(await repository.deleteKey(trx, app, profileId, keyId))) {
      throw new NotFoundError(`no key ${keyId} of query profile ${profileId} in app ${app}`);
    }
    await recordChange(trx, keyEvent(actor, 'revoke-key', app, profileId, keyId, now));
  });
}

function keyEvent(actor: string, action: string, app: string, profileId: string, keyId: string, at: Date) {
  const what = action === 'create-key' ? 'new search-only key' : 'revoked search-only key';
  return {
    actor,
    action,
    object: profileObject(app, profileId),
    summary: `${what} ${keyId} of query profile ${profileId} of app ${app}`,
    after: { keyId },
    at,
  };
}

/**
 * Whether `key` (as sent, `sdq_…`) is a live key of the profile `app`/`profileId`, among the
 * keys the node serves from memory (`keyOf` looks one up by its id).
 */
export function keyOpens(
  keyOf: (id: string) => { app: string; profileId: string; hash: Buffer } | undefined,
  key: string,
  app: string,
  profileId: string,
): boolean {
  if (!key.startsWith(KEY_PREFIX)) return false;
  const rest = key.slice(KEY_PREFIX.length);
  const separator = rest.indexOf('_');
  if (separator !== 16) return false;
  const stored = keyOf(rest.slice(0, separator));
  if (!stored || stored.app !== app || stored.profileId !== profileId) return false;
  const given = createHash('sha256')
    .update(rest.slice(separator + 1))
    .digest();
  return given.length === stored.hash.length && timingSafeEqual(given, stored.hash);
}

/** The id part of a search-only key as sent (`sdq_<id>_<secret>`), or undefined when it is none. */
export function keyIdOf(key: string): string | undefined {
  if (!key.startsWith(KEY_PREFIX) || key.charAt(KEY_PREFIX.length + 16) !== '_') return undefined;
  return key.slice(KEY_PREFIX.length, KEY_PREFIX.length + 16);
}

/** Whether a credential looks like a search-only key (so other interfaces can refuse it plainly). */
export function isQueryKey(credential: string): boolean {
  return credential.startsWith(KEY_PREFIX);
}

// The secrets are 192 random bits: a plain digest is enough, no slow hash is needed.
function hashOf(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

async function checkReferences(
  db: Kysely<Database>,
  app: string,
  body: QueryProfileBody,
  clusterInAnyApp: boolean,
): Promise<void> {
  const errors: FieldError[] = [];
  for (const name of body.allowedParams ?? []) {
    if (isForbiddenParam(name)) {
      errors.push({
        field: 'allowedParams',
        message: `allowedParams cannot name ${name}: a shopper may never send it`,
      });
    }
  }
  for (const field of ['sortFields', 'returnFields'] as const) {
    for (const name of body[field] ?? []) {
      // The standard parser's nested-query fields: Solr would run what they hold.
      if (!isPlainField(name)) errors.push({ field, message: `${field} cannot name ${name}` });
    }
  }
  const { userParam, sessionParam } = { ...DEFAULT_SHOPPER_PARAMS, ...body.signals };
  for (const [field, name] of [
    ['signals.userParam', userParam],
    ['signals.sessionParam', sessionParam],
  ] as const) {
    if (ENDPOINT_PARAMS.has(name) || isForbiddenParam(name))
      errors.push({
        field,
        message: `${field} cannot be ${name}: the endpoint or Solr reads that parameter`,
      });
  }
  if (userParam === sessionParam)
    errors.push({
      field: 'signals.sessionParam',
      message: 'signals.sessionParam must differ from signals.userParam',
    });
  try {
    await getCluster(db, body.searchCluster, clusterInAnyApp ? {} : { app });
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    const where = clusterInAnyApp ? '' : ` in app ${app}`;
    errors.push({ field: 'searchCluster', message: `no search cluster ${body.searchCluster}${where}` });
  }
  if (body.studio !== undefined && !(await holdStudio(db, body.studio))) {
    errors.push({ field: 'studio', message: `no studio ${body.studio}` });
  }
  if (body.typeahead !== undefined) {
    try {
      await getInstance(db, body.typeahead);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      errors.push({ field: 'typeahead', message: `no typeahead instance ${body.typeahead}` });
    }
  }
  if (errors.length > 0) throw new ValidationError(errors);
}

/**
 * The experiment a profile runs, checked: one of the app's, and run by no other profile of the
 * app (409). An import keeps the name only when the app holds the experiment: the profile is
 * imported running none otherwise (docs/decisions.md, "Experiments").
 */
async function experimentOf(
  db: Kysely<Database>,
  app: string,
  id: string,
  body: QueryProfileBody,
  importing: boolean,
): Promise<string | undefined> {
  const name = body.experiment;
  if (name === undefined) return undefined;
  if (!(await experimentExists(db, app, name))) {
    if (importing) return undefined;
    throw new ValidationError([{ field: 'experiment', message: `no experiment ${name} in app ${app}` }]);
  }
  const other = (await listProfiles(db, app)).find(
    (profile) => profile.id !== id && profile.experiment === name,
  );
  if (other !== undefined) {
    throw ConflictError.taken(
      'experiment',
      `query profile ${other.id} runs experiment ${name} already: an experiment runs on one profile`,
    );
  }
  return name;
}

/** What a promoted variant's params make of a profile's defaults (the policies as a query applies them). */
export function defaultsWith(
  defaults: QueryProfile['defaults'],
  params: ReadonlyArray<{ key: string; value: string; policy: 'replace' | 'append' | 'remove' | 'default' }>,
): QueryProfile['defaults'] {
  const out: QueryProfile['defaults'] = { ...defaults };
  const replaced = new Set<string>();
  const defaulted = new Set<string>();
  const append = (key: string, value: string) => {
    const before = out[key];
    out[key] = before === undefined ? value : [...[before].flat().map(String), value];
  };
  for (const { key, value, policy } of params) {
    if (policy === 'remove') delete out[key];
    else if (policy === 'append') append(key, value);
    else if (policy === 'replace') {
      if (!replaced.has(key)) delete out[key];
      replaced.add(key);
      append(key, value);
    } else if (out[key] === undefined || defaulted.has(key)) {
      defaulted.add(key);
      append(key, value);
    }
  }
  return out;
}

/**
 * Makes an experiment's variant the profile's own, in the caller's transaction: its params
 * over the defaults, its studio and rewrites switch; the profile runs no experiment after.
 */
export async function promoteVariant(
  db: Kysely<Database>,
  app: string,
  id: string,
  variant: {
    id: string;
    params: ReadonlyArray<{
      key: string;
      value: string;
      policy: 'replace' | 'append' | 'remove' | 'default';
    }>;
    studio?: string | undefined;
    rewrites: boolean;
  },
  now: Date,
  actor: string,
  experiment: string,
): Promise<QueryProfile> {
  const { id: _id, createdAt: _c, updatedAt: _u, experiment: _e, ...body } = await getProfile(db, app, id);
  const studio = variant.studio ?? body.studio;
  return writeProfile(
    db,
    app,
    id,
    {
      ...body,
      ...(studio === undefined ? {} : { studio }),
      defaults: defaultsWith(body.defaults, variant.params),
      ...(variant.rewrites ? {} : { rewrites: false }),
    },
    'put',
    now,
    {
      actor,
      action: 'promote',
      summary: `promote variant ${variant.id} of ${experiment} to query profile ${id} of app ${app}`,
    },
  );
}

function notFound(app: string, id: string): NotFoundError {
  return new NotFoundError(`no query profile ${id} in app ${app}`);
}
