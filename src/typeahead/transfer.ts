// Typeahead instances as the Objects area moves them: settings and curated terms, never the
// embed token (a new one is issued on import and stays unknown until rotated). Writes join the
// caller's transaction and only announce the change in it; serving it on this node
// (`servedAfterImport`) waits until the caller has committed.
import type { Kysely } from 'kysely';
import { ConflictError } from '../http/errors.js';
import type { Database } from '../storage/schema.js';
import {
  bumpVersion,
  deleteAllTerms,
  insertInstance,
  insertTerms,
  selectInstance,
  selectTerms,
} from './repository.js';
import { SETTING_DEFAULTS, type TransferredInstance } from './schemas.js';
import { getInstance } from './service.js';
import { assertWithinLimit, checkedTerms } from './terms-service.js';
import type { TypeaheadParts } from './typeahead-parts.js';

/** An instance with its curated terms, as exported. */
export async function instanceForExport(db: Kysely<Database>, id: string): Promise<TransferredInstance> {
  const { createdAt: _created, updatedAt: _updated, ...settings } = await getInstance(db, id);
  const terms = await selectTerms(db, id);
  const of = (list: string) => terms.filter((t) => t.list === list).map((t) => t.term);
  return { ...settings, terms: { included: of('included'), excluded: of('excluded') } };
}

/** Whether an instance with this id exists. */
export async function instanceExists(db: Kysely<Database>, id: string): Promise<boolean> {
  return (await selectInstance(db, id)) !== undefined;
}

/**
 * Creates an instance from a document, or replaces the settings and curated terms of the existing
 * one when `replace`, in the caller's transaction. Answers whether it was created.
 */
export async function importInstance(
  db: Kysely<Database>,
  typeahead: TypeaheadParts,
  instance: TransferredInstance,
  options: { replace: boolean; now: Date },
): Promise<boolean> {
  const { id, terms } = instance;
  const rows = [
    ...checkedTerms(terms.included, 'included', `typeahead:${id}.terms.included`),
    ...checkedTerms(terms.excluded, 'excluded', `typeahead:${id}.terms.excluded`),
  ];
  assertWithinLimit(rows.length);
  const at = options.now.toISOString();
  const settings = {
    name: instance.name,
    allowed_origins: JSON.stringify(instance.allowedOrigins),
    top_terms_window_days: instance.topTermsWindowDays,
    min_count: instance.minCount,
    cache_max_age_seconds: instance.cacheMaxAgeSeconds,
    min_hits: instance.minHits ?? SETTING_DEFAULTS.minHits,
  };
  const exists = await selectInstance(db, id);
  if (exists && !options.replace) throw ConflictError.taken('id', `typeahead instance ${id} already exists`);
  if (exists) {
    await bumpVersion(db, id, { ...settings, updated_at: at });
    await deleteAllTerms(db, id);
  } else {
    await insertInstance(db, {
      id,
      ...settings,
      // Nobody knows this token: the operator rotates it to get one (the import says so).
      token_hash: typeahead.tokens.hash(typeahead.tokens.generate()),
      previous_token_hash: null,
      previous_token_expires_at: null,
      version: 1,
      created_at: at,
      updated_at: at,
    });
  }
  await insertTerms(db, id, rows);
  await typeahead.feed.announce(db, id);
  return !exists;
}

/** Serves what imports changed on this node; call once their transaction has committed. */
export function servedAfterImport(typeahead: TypeaheadParts): Promise<void> {
  return typeahead.feed.changed();
}
