// Rewrites as the Objects area moves them between instances: whole (staging, live, who and
// when), written in the caller's transaction on import. A studio's live set after the import
// is checked for loops before the caller commits, so an import never publishes one.
import type { Kysely } from 'kysely';
import { ConflictError, ValidationError } from '../http/errors.js';
import type { PublishState } from '../listing/params.js';
import type { Database } from '../storage/schema.js';
import { findRewriteCycleSliced, type IdentifiedRewrite } from './loops.js';
import { insertRewrite, selectRewriteStudios, selectStudioRewrites, updateRewrite } from './repository.js';
import type { StoredRewriteContent } from './rewrite-content.js';
import { validateRewriteContent } from './rewrite-content.js';
import { asLiveRewrite, publishState, type StoredRewrite } from './rewrite-record.js';

/** A rewrite as exported: the stored rewrite with its publish state. */
export interface TransferredRewrite extends StoredRewrite {
  publishState: PublishState;
}

/** A rewrite as an import document gives it: contents still to be checked. */
export interface RewriteToImport extends Omit<StoredRewrite, 'staging' | 'live' | 'type'> {
  type: string;
  staging: unknown;
  live: unknown;
}

/** The rewrites of a studio, in the order evaluation reads them. */
export async function studioRewritesForExport(
  db: Kysely<Database>,
  studioId: string,
): Promise<TransferredRewrite[]> {
  return (await selectStudioRewrites(db, studioId)).map((r) => ({ ...r, publishState: publishState(r) }));
}

/** The studio of each of these rewrite ids that exists. */
export async function existingRewrites(db: Kysely<Database>, ids: string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (let i = 0; i < ids.length; i += 500) {
    for (const row of await selectRewriteStudios(db, ids.slice(i, i + 500))) found.set(row.id, row.studio_id);
  }
  return found;
}

/**
 * Writes a studio's rewrites from a document in the caller's transaction: new ones inserted,
 * existing ones (same id, same studio) replaced. Contents are checked as an edit's are; an id
 * of another studio's rewrite is a 409, and so is a live set that would loop (naming the loop).
 * Answers whether the studio's live set changed.
 */
export async function importStudioRewrites(
  db: Kysely<Database>,
  studioId: string,
  rewrites: RewriteToImport[],
): Promise<{ created: string[]; replaced: string[]; liveChanged: boolean }> {
  const checked = rewrites.map(checkedRewrite);
  const stored = new Map((await selectStudioRewrites(db, studioId)).map((r) => [r.id, r]));
  const elsewhere = await existingRewrites(
    db,
    checked.filter((r) => !stored.has(r.id)).map((r) => r.id),
  );
  for (const [id, studio] of elsewhere) {
    throw ConflictError.taken('id', `rewrite ${id} exists already, in studio ${studio}`);
  }
  const live = new Map<string, IdentifiedRewrite>();
  for (const r of stored.values()) if (r.live !== null) live.set(r.id, asLiveRewrite(r.id, r.live));
  for (const r of checked) {
    if (r.live === null) live.delete(r.id);
    else live.set(r.id, asLiveRewrite(r.id, r.live));
  }
  const cycle = await findRewriteCycleSliced([...live.values()]);
  if (cycle) {
    throw new ConflictError(`importing would make a rewrite loop: ${cycle.terms.join(' → ')}`, {
      cycle: cycle.terms,
      rewriteIds: cycle.ids,
    });
  }
  const created: string[] = [];
  const replaced: string[] = [];
  let liveChanged = false;
  for (const rewrite of checked) {
    const current = stored.get(rewrite.id);
    if (!current) {
      await insertRewrite(db, rewrite);
      created.push(rewrite.id);
      liveChanged ||= rewrite.live !== null;
      continue;
    }
    if (!(await updateRewrite(db, rewrite, current.lastModified))) {
      throw new ConflictError(`rewrite ${rewrite.id} changed while it was imported; try again`);
    }
    replaced.push(rewrite.id);
    liveChanged ||= current.live !== null || rewrite.live !== null;
  }
  return { created, replaced, liveChanged };
}

/** The rewrite with its contents checked and normalised as an edit's are. */
function checkedRewrite(input: RewriteToImport): StoredRewrite {
  const at = (field: string) => `rewrite:${input.id}.${field}`;
  const none = new Set<string>();
  const staging = validateRewriteContent({ ...(input.staging as object), type: input.type }, none);
  const errors = staging.ok ? [] : staging.errors.map((e) => ({ ...e, field: at(`staging.${e.field}`) }));
  let live: StoredRewriteContent | null = null;
  if (input.live !== null) {
    const checked = validateRewriteContent({ ...(input.live as object), type: input.type }, none);
    if (checked.ok) live = checked.value;
    else errors.push(...checked.errors.map((e) => ({ ...e, field: at(`live.${e.field}`) })));
  }
  if (!staging.ok || errors.length > 0) throw new ValidationError(errors);
  return { ...input, type: staging.value.type, staging: staging.value, live };
}
