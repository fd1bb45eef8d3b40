// Earlier versions of a rewrite, from the history, as for rules (src/rules/rule-restore.ts):
// the events of one rewrite (also after it was removed), and the restore of the content an
// event recorded as its staging, in one step, recreating a removed rewrite under its id.
import type { Kysely } from 'kysely';
import type { HistoryEvent } from '../history/schemas.js';
import { getEvent } from '../history/service.js';
import { studioObjectHistory, studioSince, versionIn } from '../history/versions.js';
import { AppError, ConflictError, NotFoundError } from '../http/errors.js';
import type { Page } from '../listing/page.js';
import { type Actor, recordedAs } from '../oauth/actor.js';
import { isMissingParent } from '../storage/constraint-errors.js';
import type { Database } from '../storage/schema.js';
import { editVersioned, nextLastModified, requireVersion } from '../storage/versioned-edit.js';
import { insertRewriteIfAbsent, selectRewrite, updateRewrite } from './repository.js';
import { type StoredRewriteContent, validateRewriteContent } from './rewrite-content.js';
import { READ_ONLY_FIELDS, type RewriteChange } from './rewrite-edits.js';
import { inEffect, type StoredRewrite, sameContent } from './rewrite-record.js';

/** What a restore did: the change, and whether the rewrite had been removed and came back. */
export interface RestoredRewrite extends RewriteChange {
  recreated: boolean;
}

/** The history of a rewrite of the studio, newest first (a removed one's too). */
export async function rewriteHistory(
  db: Kysely<Database>,
  studioId: string,
  id: string,
  paging: { page: number; size: number },
): Promise<Page<HistoryEvent>> {
  const stored = await selectRewrite(db, studioId, id);
  return studioObjectHistory(db, { studioId, kind: 'rewrite', id }, stored !== undefined, paging);
}

/**
 * Makes the staging content that a history event recorded of the rewrite its staging again,
 * unmarked; live stays until the next publish. A removed rewrite is created again with its
 * id and creation, as a draft.
 */
export async function restoreRewriteVersion(
  db: Kysely<Database>,
  actor: Actor,
  id: string,
  historyId: string,
  ifMatch: string | undefined,
  now: Date,
): Promise<RestoredRewrite> {
  const since = await studioSince(db, actor.studioId);
  const event = await getEvent(db, historyId);
  const record = versionIn<StoredRewrite>(event, { studioId: actor.studioId, kind: 'rewrite', id }, since);
  const staging = restoredContent(record, event);
  return editVersioned(db, 'rewrite', ifMatch, async (trx) => {
    const stored = await selectRewrite(trx, actor.studioId, id);
    if (stored) {
      requireVersion('rewrite', ifMatch, stored.lastModified);
      const next: StoredRewrite = {
        ...stored,
        staging,
        lastModifiedBy: recordedAs(actor),
        lastModified: nextLastModified(now, stored.lastModified),
      };
      if (!(await updateRewrite(trx, next, stored.lastModified))) return 'stale';
      // Clearing a deletion mark puts the live content back in effect.
      const liveChanged = !sameContent(inEffect(next), inEffect(stored));
      return { rewrite: next, removed: false, liveChanged, previous: stored, recreated: false };
    }
    if (ifMatch !== undefined) {
      throw new ConflictError(`rewrite ${id} was removed: it has no version for If-Match to name`);
    }
    const rewrite: StoredRewrite = {
      id: record.id,
      studioId: actor.studioId,
      type: record.type,
      staging,
      live: null,
      createdBy: record.createdBy,
      creationDate: record.creationDate,
      lastModifiedBy: recordedAs(actor),
      lastModified: nextLastModified(now, record.lastModified),
    };
    let inserted: boolean;
    try {
      inserted = await insertRewriteIfAbsent(trx, rewrite);
    } catch (error) {
      if (isMissingParent(error)) throw new NotFoundError(`no studio ${actor.studioId}`);
      throw error;
    }
    // Another restore brought it back meanwhile: the next attempt restores over that one.
    if (!inserted) return 'stale';
    return { rewrite, removed: false, liveChanged: false, recreated: true };
  });
}

/** The recorded staging, unmarked, checked as a PUT of it would be today (409 naming the fields). */
function restoredContent(record: StoredRewrite, event: HistoryEvent): StoredRewriteContent {
  const content = validateRewriteContent(
    { ...record.staging, deleted: false },
    READ_ONLY_FIELDS,
    record.type,
  );
  if (content.ok) return content.value;
  throw new AppError(
    'conflict',
    `the content history event ${event.id} recorded is not a valid rewrite today: ${content.errors
      .map((e) => e.message)
      .join('; ')}`,
    { errors: [...content.errors] },
  );
}
