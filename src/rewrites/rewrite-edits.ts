// The edits of one rewrite: create, read, edit staging, and the publish workflow, each in a
// transaction of its own or the caller's (bulk), through the versioned edit rules share.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { ConflictError, NotFoundError, ValidationError } from '../http/errors.js';
import { type Actor, recordedAs } from '../oauth/actor.js';
import { isMissingParent } from '../storage/constraint-errors.js';
import type { Database } from '../storage/schema.js';
import { inTransaction } from '../storage/transaction.js';
import { editVersioned, nextLastModified, requireVersion } from '../storage/versioned-edit.js';
import { LoopCheck } from './loop-check.js';
import {
  deleteRewrite,
  insertRewrite,
  selectRewrite,
  selectStudioRewrites,
  takePublishTurn,
  updateRewrite,
} from './repository.js';
import type { RewriteType } from './rewrite.js';
import { type StoredRewriteContent, validateRewriteContent } from './rewrite-content.js';
import { asLiveRewrite, inEffect, type StoredRewrite, sameContent } from './rewrite-record.js';

/**
 * What a write did: the rewrite as it now is (or was, when `removed`), and whether what
 * evaluation applies changed (live content, or its deletion mark, which hides it).
 */
export interface RewriteChange {
  rewrite: StoredRewrite;
  removed: boolean;
  liveChanged: boolean;
  /** The rewrite before an edit that kept it (for the history). */
  previous?: StoredRewrite;
}

/** Fields answered but never taken from a body; a PUT carrying them back ignores them. */
export const READ_ONLY_FIELDS = new Set([
  'id',
  'createdBy',
  'creationDate',
  'lastModifiedBy',
  'lastModified',
  'published',
  'publishState',
  'markedForDeletion',
  'liveContent',
]);

export async function createRewrite(
  db: Kysely<Database>,
  actor: Actor,
  body: unknown,
  now: Date,
): Promise<StoredRewrite> {
  const content = validateRewriteContent(body, READ_ONLY_FIELDS);
  if (!content.ok) throw new ValidationError(content.errors);
  const at = now.toISOString();
  const by = recordedAs(actor);
  const rewrite: StoredRewrite = {
    id: randomUUID(),
    studioId: actor.studioId,
    type: content.value.type,
    staging: content.value,
    live: null,
    createdBy: by,
    creationDate: at,
    lastModifiedBy: by,
    lastModified: at,
  };
  try {
    await inTransaction(db, (trx) => insertRewrite(trx, rewrite));
  } catch (error) {
    // The studio was deleted since the token was checked.
    if (isMissingParent(error)) throw new NotFoundError(`no studio ${actor.studioId}`);
    throw error;
  }
  return rewrite;
}

/** A rewrite of the studio by id; another studio's is not found either. */
export async function getRewrite(db: Kysely<Database>, studioId: string, id: string): Promise<StoredRewrite> {
  const rewrite = await selectRewrite(db, studioId, id);
  if (!rewrite) throw new NotFoundError(`no rewrite ${id}`);
  return rewrite;
}

/** `PUT`: replaces staging (the kind cannot change). `deleted: true` marks it; a draft goes at once. */
export function updateRewriteStaging(
  db: Kysely<Database>,
  actor: Actor,
  id: string,
  body: unknown,
  ifMatch: string | undefined,
  now: Date,
): Promise<RewriteChange> {
  return modify(db, actor, id, now, ifMatch, async (rewrite) => {
    const content = validateRewriteContent(body, READ_ONLY_FIELDS, rewrite.type);
    const errors = content.ok ? [] : [...content.errors];
    const type = (body as { type?: unknown } | null)?.type;
    if (content.ok && type !== undefined && content.value.type !== rewrite.type) {
      errors.push({ field: 'type', message: `type cannot change (the rewrite is a ${rewrite.type})` });
    }
    if (!content.ok || errors.length > 0) throw new ValidationError(errors);
    if (content.value.deleted && rewrite.live === null) return 'remove';
    return { staging: content.value };
  });
}

/**
 * Copies staging to live, unless the live set would then rewrite some query back into
 * itself (409 naming the loop); a rewrite marked for deletion goes entirely. Publishes of
 * one studio take turns, so two that close a loop together cannot both pass the check.
 * A bulk request hands the `loops` it keeps from one publish to the next (the studio's live
 * set as its earlier publishes left it); a single publish reads the live set into one.
 */
export function publishRewrite(db: Kysely<Database>, actor: Actor, id: string, now: Date, loops?: LoopCheck) {
  return inTransaction(db, async (trx) => {
    await takePublishTurn(trx, actor.studioId);
    return modify(trx, actor, id, now, undefined, async (rewrite) => {
      const check = loops ?? (await liveLoopCheck(trx, rewrite.studioId));
      if (rewrite.staging.deleted) {
        check.remove(rewrite.id);
        return 'remove';
      }
      const cycle = await check.loopWith(rewrite.id, asLiveRewrite(rewrite.id, rewrite.staging));
      if (cycle) throw new RewriteLoopError(cycle.terms, cycle.ids);
      return { live: rewrite.staging };
    });
  });
}

/** A publish refused because the live set would loop; the loop check is as it was before it. */
export class RewriteLoopError extends ConflictError {
  constructor(terms: string[], ids: string[]) {
    super(`publishing would make a rewrite loop: ${terms.join(' → ')}`, { cycle: terms, rewriteIds: ids });
  }
}

/** The loop check of a studio's live set, read after the caller took the publish turn. */
export async function liveLoopCheck(db: Kysely<Database>, studioId: string): Promise<LoopCheck> {
  const live = (await selectStudioRewrites(db, studioId)).flatMap((rewrite) =>
    rewrite.live === null ? [] : [asLiveRewrite(rewrite.id, rewrite.live)],
  );
  return LoopCheck.of(live);
}

/** Removes live: the rewrite is a draft again, and no longer marked for deletion. */
export function unpublishRewrite(db: Kysely<Database>, actor: Actor, id: string, now: Date) {
  return modify(db, actor, id, now, undefined, async (rewrite) => ({
    live: null,
    staging: { ...rewrite.staging, deleted: false },
  }));
}

/** Removes a draft at once; marks a published rewrite for removal by the next publish. */
export function deleteRewriteOrMark(db: Kysely<Database>, actor: Actor, id: string, now: Date) {
  return modify(db, actor, id, now, undefined, async (rewrite) =>
    rewrite.live === null ? 'remove' : { staging: { ...rewrite.staging, deleted: true } },
  );
}

/** Clears the deletion mark. */
export function restoreRewrite(db: Kysely<Database>, actor: Actor, id: string, now: Date) {
  return modify(db, actor, id, now, undefined, async (rewrite) => ({
    staging: { ...rewrite.staging, deleted: false },
  }));
}

type Edit = 'remove' | { staging?: StoredRewriteContent; live?: StoredRewriteContent | null };

function modify(
  db: Kysely<Database>,
  actor: Actor,
  id: string,
  now: Date,
  ifMatch: string | undefined,
  edit: (rewrite: StoredRewrite) => Promise<Edit>,
): Promise<RewriteChange> {
  return editVersioned(db, 'rewrite', ifMatch, async (trx) => {
    const rewrite = await getRewrite(trx, actor.studioId, id);
    requireVersion('rewrite', ifMatch, rewrite.lastModified);
    const change = await edit(rewrite);
    if (change === 'remove') {
      // Removed by a concurrent request meanwhile: the next attempt finds it gone (404).
      if (!(await deleteRewrite(trx, rewrite.id))) return 'stale';
      return { rewrite, removed: true, liveChanged: inEffect(rewrite) !== null };
    }
    const live = change.live === undefined ? rewrite.live : change.live;
    const next: StoredRewrite = {
      ...rewrite,
      staging: change.staging ?? rewrite.staging,
      live,
      lastModifiedBy: recordedAs(actor),
      lastModified: nextLastModified(now, rewrite.lastModified),
    };
    if (!(await updateRewrite(trx, next, rewrite.lastModified))) return 'stale';
    const liveChanged = !sameContent(inEffect(next), inEffect(rewrite));
    return { rewrite: next, removed: false, liveChanged, previous: rewrite };
  });
}

export type { RewriteType };
