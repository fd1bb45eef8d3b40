// Bulk edits of rewrites: many creates, updates, deletes and publishes in one transaction,
// answered when done. Each item's own failure (bad body, unknown id, a loop) is recorded
// and the rest goes on; publishes see the items before them, so a loop the request itself
// closes is refused at the item that closes it.
import type { Kysely } from 'kysely';
import { Compile } from 'typebox/compile';
import { AppError, ValidationError } from '../http/errors.js';
import { fieldErrors } from '../http/validation-errors.js';
import type { Actor } from '../oauth/actor.js';
import type { Database } from '../storage/schema.js';
import { inTransaction } from '../storage/transaction.js';
import { type LoopCheck, LoopCheckLimitError } from './loop-check.js';
import { lockRewrites, takePublishTurn } from './repository.js';
import {
  createRewrite,
  deleteRewriteOrMark,
  liveLoopCheck,
  publishRewrite,
  type RewriteChange,
  RewriteLoopError,
  updateRewriteStaging,
} from './rewrite-edits.js';
import {
  type RewriteBulkRequest,
  type RewriteBulkResult,
  RewriteCreateBody,
  RewriteUpdateBody,
} from './schemas.js';

// Rewrites are small and a studio has thousands, not millions: one request, one transaction.
export const MAX_BULK_ITEMS = 1000;

type Operation = 'create' | 'update' | 'delete' | 'publish';

const createItems = Compile(RewriteCreateBody);
const updateItems = Compile(RewriteUpdateBody);

/** Applies every item in order in one transaction; answers the counts, the created ids and the failures. */
export async function runBulk(
  db: Kysely<Database>,
  actor: Actor,
  request: RewriteBulkRequest,
  now: Date,
): Promise<{ result: RewriteBulkResult; changes: RewriteChange[] }> {
  const items: Array<{ operation: Operation; body?: unknown; id?: string }> = [
    ...(request.create ?? []).map((body) => ({ operation: 'create' as const, body })),
    ...(request.update ?? []).map((body) => ({ operation: 'update' as const, body, id: idOf(body) })),
    ...(request.delete ?? []).map((id) => ({ operation: 'delete' as const, id })),
    ...(request.publish ?? []).map((id) => ({ operation: 'publish' as const, id })),
  ];
  const missing = items.findIndex((item) => item.operation === 'update' && item.id === undefined);
  if (missing >= 0) {
    throw new ValidationError([
      { field: `update[${missing}].id`, message: 'every update needs the rewrite id' },
    ]);
  }
  if (items.length === 0 || items.length > MAX_BULK_ITEMS) {
    throw new ValidationError([
      {
        field: 'body',
        message: `a bulk request takes 1 to ${MAX_BULK_ITEMS} items in create, update, delete, publish`,
      },
    ]);
  }
  return inTransaction(db, async (trx) => {
    // The publish turn first, before any rewrite row is locked by an earlier item: a single
    // publish takes the turn then its row, and the opposite order here could deadlock with it.
    if (request.publish?.length) await takePublishTurn(trx, actor.studioId);
    // Then every rewrite named, in id order: items run in request order, and two requests
    // naming the same rewrites in other orders would otherwise lock them crosswise.
    const named = [...new Set(items.flatMap((item) => item.id ?? []))];
    await lockRewrites(trx, actor.studioId, named);
    const result: RewriteBulkResult = {
      status: 'DONE',
      counts: { created: 0, updated: 0, deleted: 0, published: 0, failed: 0 },
      created: [],
      errors: [],
    };
    const changes: RewriteChange[] = [];
    // The live set's loop check, read once at the first publish and kept up to date by each
    // one after it: a publish then searches from its own edges only, not the whole set again.
    let loops: LoopCheck | undefined;
    for (const [index, item] of items.entries()) {
      let revision: number | undefined;
      try {
        switch (item.operation) {
          case 'create': {
            checked(createItems, item.body);
            const rewrite = await createRewrite(trx, actor, item.body, now);
            result.created.push(rewrite.id);
            result.counts.created += 1;
            break;
          }
          case 'update':
            checked(updateItems, item.body);
            changes.push(await updateRewriteStaging(trx, actor, item.id!, item.body, undefined, now));
            result.counts.updated += 1;
            break;
          case 'delete':
            changes.push(await deleteRewriteOrMark(trx, actor, item.id!, now));
            result.counts.deleted += 1;
            break;
          case 'publish':
            loops ??= await liveLoopCheck(trx, actor.studioId);
            revision = loops.revision;
            changes.push(await publishRewrite(trx, actor, item.id!, now, loops));
            result.counts.published += 1;
            break;
        }
      } catch (error) {
        // A check past its bound refuses the whole request: nothing of it is written.
        if (!(error instanceof AppError) || error instanceof LoopCheckLimitError) throw error;
        // A publish that failed after its check passed (not by a loop, which the check undoes)
        // left the check ahead of what was written: the next publish reads the live set again.
        if (revision !== loops?.revision && !(error instanceof RewriteLoopError)) loops = undefined;
        result.counts.failed += 1;
        result.errors.push({
          operation: item.operation,
          index,
          ...(item.id === undefined ? {} : { id: item.id }),
          message: error.message,
        });
      }
    }
    return { result, changes };
  });
}

function checked(validator: ReturnType<typeof Compile>, body: unknown): void {
  if (!validator.Check(body)) throw new ValidationError(fieldErrors([...validator.Errors(body)]));
}

function idOf(body: unknown): string | undefined {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}
