import { randomInt } from 'node:crypto';
import type { Kysely } from 'kysely';
import { recordChange } from '../history/service.js';
import { ConflictError, NotFoundError } from '../http/errors.js';
import { removeLinksOf } from '../links/service.js';
import { uniqueViolation } from '../storage/constraint-errors.js';
import type { Database } from '../storage/schema.js';
import { inTransaction } from '../storage/transaction.js';
import type { ServedInstance } from './registry.js';
import {
  bumpVersion,
  deleteInstance,
  type InstanceRow,
  insertInstance,
  selectInstance,
  selectInstances,
} from './repository.js';
import {
  type EmbedTokenAnswerType,
  type Instance,
  type InstanceCreate,
  type InstancePatch,
  type InstanceWithTokenType,
  SETTING_DEFAULTS,
} from './schemas.js';
import type { SuggestionIndex } from './suggestion-index.js';
import type { TypeaheadParts } from './typeahead-parts.js';

function toInstance(row: InstanceRow): Instance {
  return {
    id: row.id,
    name: row.name,
    allowedOrigins: JSON.parse(row.allowed_origins) as string[],
    topTermsWindowDays: row.top_terms_window_days,
    minCount: row.min_count,
    cacheMaxAgeSeconds: row.cache_max_age_seconds,
    minHits: row.min_hits,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function settingColumns(patch: InstancePatch): Partial<InstanceRow> {
  return {
    ...(patch.name !== undefined ? { name: patch.name } : {}),
    ...(patch.allowedOrigins !== undefined ? { allowed_origins: JSON.stringify(patch.allowedOrigins) } : {}),
    ...(patch.topTermsWindowDays !== undefined ? { top_terms_window_days: patch.topTermsWindowDays } : {}),
    ...(patch.minCount !== undefined ? { min_count: patch.minCount } : {}),
    ...(patch.cacheMaxAgeSeconds !== undefined ? { cache_max_age_seconds: patch.cacheMaxAgeSeconds } : {}),
    ...(patch.minHits !== undefined ? { min_hits: patch.minHits } : {}),
  };
}

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

function generatedId(): string {
  let id = '';
  for (let i = 0; i < 12; i++) id += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
  return id;
}

/** Creates an instance with a fresh embed token, which is answered once and never again. */
export async function createInstance(
  db: Kysely<Database>,
  typeahead: TypeaheadParts,
  create: InstanceCreate,
  now: Date,
  actor: string,
): Promise<InstanceWithTokenType> {
  const { tokens } = typeahead;
  const id = create.id ?? generatedId();
  const taken = () => ConflictError.taken('id', `typeahead instance ${id} already exists`);
  if (await selectInstance(db, id)) throw taken();
  const embedToken = tokens.generate();
  const at = now.toISOString();
  const row: InstanceRow = {
    id,
    name: create.name,
    allowed_origins: JSON.stringify(create.allowedOrigins ?? SETTING_DEFAULTS.allowedOrigins),
    top_terms_window_days: create.topTermsWindowDays ?? SETTING_DEFAULTS.topTermsWindowDays,
    min_count: create.minCount ?? SETTING_DEFAULTS.minCount,
    cache_max_age_seconds: create.cacheMaxAgeSeconds ?? SETTING_DEFAULTS.cacheMaxAgeSeconds,
    min_hits: create.minHits ?? SETTING_DEFAULTS.minHits,
    token_hash: tokens.hash(embedToken),
    previous_token_hash: null,
    previous_token_expires_at: null,
    version: 1,
    created_at: at,
    updated_at: at,
  };
  try {
    await inTransaction(db, async (trx) => {
      await insertInstance(trx, row);
      await recordChange(trx, {
        actor,
        action: 'create',
        object: `typeahead:${id}`,
        summary: `created typeahead instance ${id}`,
        after: toInstance(row),
        at: now,
      });
    });
  } catch (error) {
    // Two creations of one id racing: the loser lands here. (The other unique column, the
    // token's hash, is of 32 random bytes.)
    if (uniqueViolation(error)) throw taken();
    throw error;
  }
  await typeahead.feed.changed();
  return { ...toInstance(row), embedToken };
}

export async function listInstances(db: Kysely<Database>): Promise<Instance[]> {
  return (await selectInstances(db)).map(toInstance);
}

export async function getInstance(db: Kysely<Database>, id: string): Promise<Instance> {
  const row = await selectInstance(db, id);
  if (!row) throw instanceNotFound(id);
  return toInstance(row);
}

export async function patchInstance(
  db: Kysely<Database>,
  typeahead: TypeaheadParts,
  id: string,
  patch: InstancePatch,
  now: Date,
  actor: string,
): Promise<Instance> {
  const instance = await inTransaction(db, async (trx) => {
    const before = await selectInstance(trx, id);
    const found = await bumpVersion(trx, id, { ...settingColumns(patch), updated_at: now.toISOString() });
    if (!found || !before) throw instanceNotFound(id);
    await typeahead.feed.announce(trx, id);
    const after = await getInstance(trx, id);
    await recordChange(trx, {
      actor,
      action: 'update',
      object: `typeahead:${id}`,
      summary: `changed the settings of typeahead instance ${id}`,
      before: toInstance(before),
      after,
      at: now,
    });
    return after;
  });
  await typeahead.feed.changed();
  return instance;
}

/** Deletes an instance with its terms and logs, and the links that name it (`typeahead:{id}`). */
export async function removeInstance(
  db: Kysely<Database>,
  typeahead: TypeaheadParts,
  id: string,
  actor: string,
): Promise<void> {
  await inTransaction(db, async (trx) => {
    const before = await selectInstance(trx, id);
    if (!before || !(await deleteInstance(trx, id))) throw instanceNotFound(id);
    await typeahead.feed.announce(trx, id);
    await removeLinksOf(trx, `typeahead:${id}`);
    await recordChange(trx, {
      actor,
      action: 'delete',
      object: `typeahead:${id}`,
      summary: `deleted typeahead instance ${id}`,
      before: toInstance(before),
    });
  });
  await typeahead.feed.changed();
}

/** Issues a new embed token; the old one keeps working for `graceSeconds` (0: stops at once). */
export async function rotateEmbedToken(
  db: Kysely<Database>,
  typeahead: TypeaheadParts,
  id: string,
  graceSeconds: number,
  now: Date,
  actor: string,
): Promise<EmbedTokenAnswerType> {
  const { tokens } = typeahead;
  const embedToken = tokens.generate();
  const previousTokenExpiresAt =
    graceSeconds > 0 ? new Date(now.getTime() + graceSeconds * 1000).toISOString() : null;
  await db.transaction().execute(async (trx) => {
    const row = await selectInstance(trx, id);
    if (!row) throw instanceNotFound(id);
    await bumpVersion(trx, id, {
      token_hash: tokens.hash(embedToken),
      previous_token_hash: previousTokenExpiresAt ? row.token_hash : null,
      previous_token_expires_at: previousTokenExpiresAt,
      updated_at: now.toISOString(),
    });
    await typeahead.feed.announce(trx, id);
    await recordChange(trx, {
      actor,
      action: 'rotate-embed-token',
      object: `typeahead:${id}`,
      summary: `issued a new embed token for typeahead instance ${id} (the old one works for ${graceSeconds} s)`,
      at: now,
    });
  });
  await typeahead.feed.changed();
  return { embedToken, previousTokenExpiresAt };
}

/**
 * An instance with its suggestion index, for the administrative preview. An instance this
 * node has not heard of yet (made through another node a moment ago) is looked up first.
 */
export async function previewIndex(
  typeahead: TypeaheadParts,
  id: string,
): Promise<{ instance: ServedInstance; index: SuggestionIndex }> {
  const { registry } = typeahead;
  let instance = registry.get(id);
  if (!instance) {
    await typeahead.feed.changed();
    instance = registry.get(id);
  }
  if (!instance) throw instanceNotFound(id);
  return { instance, index: await registry.index(instance) };
}

/** The error of a request for an instance that does not exist. */
export function instanceNotFound(id: string): NotFoundError {
  return new NotFoundError(`no typeahead instance ${id}`);
}
