import { randomInt } from 'node:crypto';
import type { Kysely } from 'kysely';
import { ConflictError, LimitExceededError, NotFoundError, ValidationError } from '../http/errors.js';
import { removeLinksOf } from '../links/service.js';
import { uniqueViolation } from '../storage/constraint-errors.js';
import type { Database } from '../storage/schema.js';
import { inTransaction } from '../storage/transaction.js';
import { checkTerm } from '../text/term-key.js';
import {
  bumpVersion,
  countTerms,
  deleteAllTerms,
  deleteInstance,
  deleteTermsByKey,
  type InstanceRow,
  insertInstance,
  insertTerms,
  selectInstance,
  selectInstances,
  selectTerms,
  selectTopTerms,
  type TermListName,
  type TermRow,
} from './repository.js';
import type { Instance, InstanceCreate, InstancePatch, Terms, TermsPatch, TermsPut } from './schemas.js';
import type { EmbedTokens } from './tokens.js';

/** Included plus excluded terms of one instance. */
export const MAX_CUSTOM_TERMS = 4000;

export const DEFAULT_SETTINGS = {
  allowedOrigins: ['*'],
  topTermsWindowDays: 30,
  minCount: 3,
  cacheMaxAgeSeconds: 60,
} as const;

function toInstance(row: InstanceRow): Instance {
  return {
    id: row.id,
    name: row.name,
    allowedOrigins: JSON.parse(row.allowed_origins) as string[],
    topTermsWindowDays: row.top_terms_window_days,
    minCount: row.min_count,
    cacheMaxAgeSeconds: row.cache_max_age_seconds,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function settingColumns(body: InstancePatch): Partial<InstanceRow> {
  return {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.allowedOrigins !== undefined ? { allowed_origins: JSON.stringify(body.allowedOrigins) } : {}),
    ...(body.topTermsWindowDays !== undefined ? { top_terms_window_days: body.topTermsWindowDays } : {}),
    ...(body.minCount !== undefined ? { min_count: body.minCount } : {}),
    ...(body.cacheMaxAgeSeconds !== undefined ? { cache_max_age_seconds: body.cacheMaxAgeSeconds } : {}),
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
  tokens: EmbedTokens,
  body: InstanceCreate,
  now: Date,
): Promise<Instance & { embedToken: string }> {
  const id = body.id ?? generatedId();
  const taken = () => ConflictError.taken('id', `typeahead instance ${id} already exists`);
  if (await selectInstance(db, id)) throw taken();
  const embedToken = tokens.generate();
  const at = now.toISOString();
  const row: InstanceRow = {
    id,
    name: body.name,
    allowed_origins: JSON.stringify(body.allowedOrigins ?? DEFAULT_SETTINGS.allowedOrigins),
    top_terms_window_days: body.topTermsWindowDays ?? DEFAULT_SETTINGS.topTermsWindowDays,
    min_count: body.minCount ?? DEFAULT_SETTINGS.minCount,
    cache_max_age_seconds: body.cacheMaxAgeSeconds ?? DEFAULT_SETTINGS.cacheMaxAgeSeconds,
    token_hash: tokens.hash(embedToken),
    previous_token_hash: null,
    previous_token_expires_at: null,
    version: 1,
    created_at: at,
    updated_at: at,
  };
  try {
    await insertInstance(db, row);
  } catch (error) {
    // Two creations of one id racing: the loser lands here. (The other unique column, the
    // token's hash, is of 32 random bytes.)
    if (uniqueViolation(error)) throw taken();
    throw error;
  }
  return { ...toInstance(row), embedToken };
}

export async function listInstances(db: Kysely<Database>): Promise<Instance[]> {
  return (await selectInstances(db)).map(toInstance);
}

export async function getInstance(db: Kysely<Database>, id: string): Promise<Instance> {
  const row = await selectInstance(db, id);
  if (!row) throw notFound(id);
  return toInstance(row);
}

export async function patchInstance(
  db: Kysely<Database>,
  id: string,
  body: InstancePatch,
  now: Date,
): Promise<Instance> {
  const found = await bumpVersion(db, id, { ...settingColumns(body), updated_at: now.toISOString() });
  if (!found) throw notFound(id);
  return getInstance(db, id);
}

/** Deletes an instance with its terms and logs, and the links that name it (`typeahead:{id}`). */
export async function removeInstance(db: Kysely<Database>, id: string): Promise<void> {
  await inTransaction(db, async (trx) => {
    if (!(await deleteInstance(trx, id))) throw notFound(id);
    await removeLinksOf(trx, `typeahead:${id}`);
  });
}

/** Issues a new embed token; the old one keeps working for `graceSeconds` (0: stops at once). */
export async function rotateEmbedToken(
  db: Kysely<Database>,
  tokens: EmbedTokens,
  id: string,
  graceSeconds: number,
  now: Date,
): Promise<{ embedToken: string; previousTokenExpiresAt: string | null }> {
  const embedToken = tokens.generate();
  const previousTokenExpiresAt =
    graceSeconds > 0 ? new Date(now.getTime() + graceSeconds * 1000).toISOString() : null;
  await db.transaction().execute(async (trx) => {
    const row = await selectInstance(trx, id);
    if (!row) throw notFound(id);
    await bumpVersion(trx, id, {
      token_hash: tokens.hash(embedToken),
      previous_token_hash: previousTokenExpiresAt ? row.token_hash : null,
      previous_token_expires_at: previousTokenExpiresAt,
      updated_at: now.toISOString(),
    });
  });
  return { embedToken, previousTokenExpiresAt };
}

/** The curated and top-searched terms of an instance, with their counts. */
export async function getTerms(db: Kysely<Database>, id: string): Promise<Terms> {
  if (!(await selectInstance(db, id))) throw notFound(id);
  const [custom, top] = await Promise.all([selectTerms(db, id), selectTopTerms(db, id)]);
  const included = custom.filter((t) => t.list === 'included');
  const excluded = custom.filter((t) => t.list === 'excluded');
  const excludedKeys = new Set(excluded.map((t) => t.key));
  const served = new Set(
    [...included.map((t) => t.key), ...top.map((t) => t.key)].filter((key) => !excludedKeys.has(key)),
  );
  return {
    included: included.map((t) => t.term),
    excluded: excluded.map((t) => t.term),
    topSearched: top.map((t) => ({ term: t.term, count: t.count })),
    counts: { custom: custom.length, topSearched: top.length, served: served.size },
  };
}

/** Replaces both curated lists at once. */
export async function putTerms(db: Kysely<Database>, id: string, body: TermsPut, now: Date): Promise<Terms> {
  const rows = [
    ...checkedTerms(body.included, 'included', 'included'),
    ...checkedTerms(body.excluded, 'excluded', 'excluded'),
  ];
  assertWithinLimit(rows.length);
  await db.transaction().execute(async (trx) => {
    if (!(await bumpVersion(trx, id, { updated_at: now.toISOString() }))) throw notFound(id);
    await deleteAllTerms(trx, id);
    await insertTerms(trx, id, rows);
  });
  return getTerms(db, id);
}

/** Adds and removes curated terms in one transaction: removals first, so a term may move lists. */
export async function patchTerms(
  db: Kysely<Database>,
  id: string,
  body: TermsPatch,
  now: Date,
): Promise<Terms> {
  const lists: TermListName[] = ['included', 'excluded'];
  const removals = lists.map((list) => ({
    list,
    keys: checkedTerms(body.remove?.[list] ?? [], list, `remove.${list}`).map((t) => t.key),
  }));
  const additions = lists.flatMap((list) => checkedTerms(body.add?.[list] ?? [], list, `add.${list}`));
  await db.transaction().execute(async (trx) => {
    // The version bump locks the instance first, so concurrent changes count one after another.
    if (!(await bumpVersion(trx, id, { updated_at: now.toISOString() }))) throw notFound(id);
    for (const { list, keys } of removals) await deleteTermsByKey(trx, id, list, keys);
    await insertTerms(trx, id, additions);
    // Throwing rolls the whole change back: a rejected change changes nothing.
    assertWithinLimit(await countTerms(trx, id));
  });
  return getTerms(db, id);
}

/** Checks every term (naming the first bad ones) and keeps the first of each key. */
function checkedTerms(terms: readonly string[], list: TermListName, field: string): TermRow[] {
  const rows = new Map<string, TermRow>();
  const errors = [];
  for (const [i, term] of terms.entries()) {
    const check = checkTerm(term);
    if (!check.valid) errors.push({ field: `${field}[${i}]`, message: `${field}[${i}] ${check.reason}` });
    else if (!rows.has(check.key)) rows.set(check.key, { list, key: check.key, term: check.term });
  }
  if (errors.length > 0) throw new ValidationError(errors.slice(0, 20));
  return [...rows.values()];
}

function assertWithinLimit(count: number): void {
  if (count > MAX_CUSTOM_TERMS) {
    throw new LimitExceededError(
      `an instance has at most ${MAX_CUSTOM_TERMS} custom terms (included + excluded); this change would make ${count}`,
      { limit: MAX_CUSTOM_TERMS, count },
    );
  }
}

function notFound(id: string): NotFoundError {
  return new NotFoundError(`no typeahead instance ${id}`);
}
