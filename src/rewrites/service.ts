// What each request of the Query Rewrites API does, from checked input to the answer, and
// what other areas ask of rewrites: the live and staging sets evaluation applies, and
// whether a studio has any (for an unforced studio delete).
import type { Kysely } from 'kysely';
import type { HistoryEvent } from '../history/schemas.js';
import { type ChangeEvent, recordChange } from '../history/service.js';
import { describeRestore } from '../history/versions.js';
import type { Page } from '../listing/page.js';
import type { Actor } from '../oauth/actor.js';
import type { Database } from '../storage/schema.js';
import { inTransaction } from '../storage/transaction.js';
import { versionEtag } from '../storage/versioned-edit.js';
import type { StudioContent } from '../studios/service.js';
import { runBulk } from './bulk.js';
import { listRewrites } from './listing.js';
import { anyRewriteOfStudio, selectStudioRewrites } from './repository.js';
import type { LiveRewrite } from './rewrite.js';
import {
  createRewrite,
  deleteRewriteOrMark,
  getRewrite,
  publishRewrite,
  type RewriteChange,
  restoreRewrite,
  unpublishRewrite,
  updateRewriteStaging,
} from './rewrite-edits.js';
import { rewriteBulkEvent, rewriteEvent } from './rewrite-history.js';
import {
  asLiveRewrite,
  inEffect,
  isMarkedForDeletion,
  publishState,
  type StoredRewrite,
} from './rewrite-record.js';
import { restoreRewriteVersion, rewriteHistory } from './rewrite-restore.js';
import type {
  RewriteBulkRequest,
  RewriteBulkResult,
  RewriteCreateBody,
  RewriteListingQuery,
  RewriteResponse,
  RewriteUpdateBody,
} from './schemas.js';

/** A rewrite as answered, with the ETag of its version. */
export interface AnsweredRewrite {
  rewrite: RewriteResponse;
  etag: string;
}

/** Called after a commit that changed what evaluation applies for a studio. */
export type LiveChangeListener = (studioId: string) => void;

/** The publish workflow's actions, each one `POST /query-rewrites/{id}/{action}`. */
export const REWRITE_ACTIONS = ['publish', 'unpublish', 'restore'] as const;
export type RewriteAction = (typeof REWRITE_ACTIONS)[number];

const actions = { publish: publishRewrite, unpublish: unpublishRewrite, restore: restoreRewrite };

export class RewritesService {
  constructor(
    private readonly now: () => Date,
    private readonly onLiveChange: LiveChangeListener = () => {},
    /** Told how many rewrites a bulk request wrote (the planner's statistics follow large ones). */
    private readonly wrote: (rows: number) => void = () => {},
  ) {}

  list(db: Kysely<Database>, studioId: string, query: RewriteListingQuery): Promise<Page<RewriteResponse>> {
    return listRewrites(db, studioId, query, presentRewrite);
  }

  async get(db: Kysely<Database>, studioId: string, id: string): Promise<AnsweredRewrite> {
    return answer(await getRewrite(db, studioId, id));
  }

  async create(db: Kysely<Database>, actor: Actor, body: RewriteCreateBody): Promise<AnsweredRewrite> {
    // A new rewrite is a draft: evaluation does not see it yet.
    return answer(
      await inTransaction(db, async (trx) => {
        const rewrite = await createRewrite(trx, actor, body, this.now());
        await recordChange(trx, rewriteEvent(actor, 'create', rewrite, undefined, this.now()));
        return rewrite;
      }),
    );
  }

  async update(
    db: Kysely<Database>,
    actor: Actor,
    id: string,
    body: RewriteUpdateBody,
    ifMatch?: string,
  ): Promise<AnsweredRewrite> {
    return answer(
      this.announce(
        await this.write(db, actor, 'update', (trx) =>
          updateRewriteStaging(trx, actor, id, body, ifMatch, this.now()),
        ),
      ).rewrite,
    );
  }

  /** Deletes a draft, or marks a published rewrite for deletion (evaluation stops applying it). */
  async remove(db: Kysely<Database>, actor: Actor, id: string): Promise<void> {
    this.announce(
      await this.write(db, actor, 'delete', (trx) => deleteRewriteOrMark(trx, actor, id, this.now())),
    );
  }

  async act(db: Kysely<Database>, action: RewriteAction, actor: Actor, id: string): Promise<AnsweredRewrite> {
    const edit = (trx: Kysely<Database>) => actions[action](trx, actor, id, this.now());
    return answer(this.announce(await this.write(db, actor, action, edit)).rewrite);
  }

  /** A rewrite's history, newest first (also of a rewrite removed since). */
  history(
    db: Kysely<Database>,
    studioId: string,
    id: string,
    paging: { page: number; size: number },
  ): Promise<Page<HistoryEvent>> {
    return rewriteHistory(db, studioId, id, paging);
  }

  /** Makes the content a history event recorded the rewrite's staging again; a removed one comes back. */
  async restoreVersion(
    db: Kysely<Database>,
    actor: Actor,
    id: string,
    historyId: string,
    ifMatch?: string,
  ): Promise<AnsweredRewrite> {
    const change = await this.write(
      db,
      actor,
      'restore-version',
      (trx) => restoreRewriteVersion(trx, actor, id, historyId, ifMatch, this.now()),
      describeRestore(`query rewrite ${id}`, historyId),
    );
    return answer(this.announce(change).rewrite);
  }

  async bulk(db: Kysely<Database>, actor: Actor, request: RewriteBulkRequest): Promise<RewriteBulkResult> {
    const { result, changes } = await inTransaction(db, async (trx) => {
      const done = await runBulk(trx, actor, request, this.now());
      const { created } = done.result;
      if (created.length + done.changes.length > 0) {
        await recordChange(trx, rewriteBulkEvent(actor, created, done.changes, this.now()));
      }
      return done;
    });
    if (changes.some((change) => change.liveChanged)) this.onLiveChange(actor.studioId);
    this.wrote(result.created.length + changes.length);
    return result;
  }

  /** One edit with its history event, in one transaction. */
  private write<Change extends RewriteChange>(
    db: Kysely<Database>,
    actor: Actor,
    action: string,
    edit: (trx: Kysely<Database>) => Promise<Change>,
    describe: (event: ChangeEvent, change: Change) => ChangeEvent = (event) => event,
  ): Promise<Change> {
    return inTransaction(db, async (trx) => {
      const change = await edit(trx);
      const after = change.removed ? undefined : change.rewrite;
      const before = change.removed ? change.rewrite : change.previous;
      await recordChange(trx, describe(rewriteEvent(actor, action, after, before, this.now()), change));
      return change;
    });
  }

  /** Tells the listener, after the commit, when the change reached what evaluation applies. */
  private announce<Change extends RewriteChange>(change: Change): Change {
    if (change.liveChanged) this.onLiveChange(change.rewrite.studioId);
    return change;
  }
}

/** The record of a rewrite: staging content, read-only fields, live content. */
export function presentRewrite(rewrite: StoredRewrite): RewriteResponse {
  return {
    ...rewrite.staging,
    id: rewrite.id,
    createdBy: rewrite.createdBy,
    creationDate: rewrite.creationDate,
    lastModifiedBy: rewrite.lastModifiedBy,
    lastModified: rewrite.lastModified,
    published: rewrite.live !== null,
    publishState: publishState(rewrite),
    markedForDeletion: isMarkedForDeletion(rewrite),
    liveContent: rewrite.live,
  } as RewriteResponse;
}

function answer(rewrite: StoredRewrite): AnsweredRewrite {
  return { rewrite: presentRewrite(rewrite), etag: versionEtag(rewrite.lastModified) };
}

/**
 * The rewrites evaluation applies for a studio: live, not marked for deletion, in creation
 * order (then id), each with its id and effective range.
 */
export async function liveRewritesOf(db: Kysely<Database>, studioId: string): Promise<LiveRewrite[]> {
  return (await selectStudioRewrites(db, studioId)).flatMap((rewrite) => {
    const live = inEffect(rewrite);
    return live === null ? [] : [asLiveRewrite(rewrite.id, live)];
  });
}

/**
 * The staging content of a studio's rewrites, for previews of what publishing would do:
 * every rewrite's staging, except those marked for deletion, in the same order.
 */
export async function stagingRewritesOf(db: Kysely<Database>, studioId: string): Promise<LiveRewrite[]> {
  return (await selectStudioRewrites(db, studioId)).flatMap((rewrite) =>
    rewrite.staging.deleted ? [] : [asLiveRewrite(rewrite.id, rewrite.staging)],
  );
}

/** A studio's rewrites, which the studios area keeps from going with an unforced delete. */
export const studioRewrites: StudioContent = { name: 'rewrites', exists: anyRewriteOfStudio };
