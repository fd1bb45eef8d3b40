// Bulk operations: many creates, updates, deletes and publishes, processed in
// the background in one transaction per 100 items, yielding to the event loop
// every few milliseconds. Rules taking part are flagged until the operation ends.
import { randomUUID } from 'node:crypto';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Static, TProperties, TSchema } from 'typebox';
import { Compile, type Validator } from 'typebox/compile';
import { recordChange } from '../history/service.js';
import { AppError, NotFoundError, ValidationError } from '../http/errors.js';
import type { Actor } from '../oauth/actor.js';
import type { Database } from '../storage/schema.js';
import { TimeSlice } from '../storage/time-slice.js';
import { inTransaction } from '../storage/transaction.js';
import {
  failBulkOperation,
  insertBulkOperation,
  saveBulkOperation,
  selectBulkOperation,
  selectSilentBulkOperations,
} from './bulk-repository.js';
import { enqueueRuleChanges } from './deliveries.js';
import { clearBulkOperation, lockRules, markBulkOperation, selectRule } from './repository.js';
import {
  createRule,
  deleteRuleOrMark,
  publishRule,
  type RuleChange,
  updateRuleStaging,
} from './rule-edits.js';
import { bulkChunkEvent } from './rule-history.js';
import type { RulesMetrics } from './rules-metrics.js';
import type { LiveChangeListener } from './rules-parts.js';
import { fieldErrors } from './schema-errors.js';
import { type BulkRequest, RuleCreateBody, RuleUpdateBody } from './schemas.js';
import type { WebhookDelivery } from './webhook-delivery.js';

// Items per transaction. On SQLite a commit writes every page the chunk changed in one
// synchronous call: 500 rules took 40-200 ms (and more as the WAL fills), 100 take 10-20.
export const CHUNK_SIZE = 100;
// A chunk takes seconds at most; an operation silent this long has lost its node.
export const ABANDONED_AFTER_MS = 5 * 60_000;
const MAX_ITEMS = 100_000;

type Operation = 'create' | 'update' | 'delete' | 'publish';
interface Item {
  operation: Operation;
  body?: unknown;
  id?: string;
}

export interface BulkStatus {
  operationId: string;
  status: 'PENDING' | 'RUNNING' | 'DONE' | 'FAILED';
  counts: { created: number; updated: number; deleted: number; published: number; failed: number };
  errors: Array<{ operation: Operation; index: number; id?: string; message: string }>;
}

/** Runs bulk operations in the background; one per app, stopped when the app closes. */
export class BulkRunner {
  private readonly running = new Set<Promise<void>>();
  private stopping = false;

  constructor(
    private readonly log: FastifyBaseLogger,
    private readonly now: () => Date,
    private readonly webhooks: WebhookDelivery,
    private readonly metrics: RulesMetrics,
    private readonly liveChanged: LiveChangeListener = async () => {},
    /** Told how many rules an operation wrote, once it ends (the planner's statistics follow). */
    private readonly wrote: (rows: number) => void = () => {},
  ) {}

  /**
   * Records the operation, flags the rules it names, and starts it. The operation goes on
   * after the call on the same handle, so `db` is the store's, not a transaction.
   */
  async start(db: Kysely<Database>, actor: Actor, request: BulkRequest): Promise<{ operationId: string }> {
    const items = itemsOf(request);
    const operationId = randomUUID();
    const status: BulkStatus = { operationId, status: 'PENDING', counts: emptyCounts(), errors: [] };
    // Flagging takes the rules' row locks, which a running operation over the same rules may
    // hold in another order: a deadlock here is run again like a chunk (inTransaction).
    await inTransaction(db, async (trx) => {
      await insertBulkOperation(trx, actor.studioId, status, this.now().toISOString());
      const named = await Promise.all(
        items
          .filter((item) => item.id !== undefined)
          .map((item) => selectRule(trx, actor.studioId, item.id!)),
      );
      // In id order, so two operations flagging the same rules lock them in one order.
      await markBulkOperation(
        trx,
        named.flatMap((stored) => (stored ? [stored.rule.id] : [])).sort(),
        operationId,
      );
    });
    const run = this.run(db, actor, operationId, items).finally(() => this.running.delete(run));
    this.running.add(run);
    return { operationId };
  }

  async status(db: Kysely<Database>, studioId: string, operationId: string): Promise<BulkStatus> {
    await this.failAbandoned(db);
    const record = await selectBulkOperation(db, studioId, operationId);
    if (!record) throw new NotFoundError(`no bulk operation ${operationId}`);
    return record as BulkStatus;
  }

  /**
   * Ends as FAILED, with their rules unflagged, the operations whose node stopped without
   * finishing them (killed, or lost): they show no sign of life for ABANDONED_AFTER_MS.
   */
  async failAbandoned(db: Kysely<Database>): Promise<void> {
    const cutoff = new Date(this.now().getTime() - ABANDONED_AFTER_MS).toISOString();
    const abandoned = await selectSilentBulkOperations(db, cutoff);
    for (const { id, errors } of abandoned) {
      const message = 'the service stopped before the operation ended';
      await clearBulkOperation(db, id);
      const failed = [...JSON.parse(errors), { operation: 'create', index: -1, message }];
      await failBulkOperation(db, id, failed, this.now().toISOString());
    }
  }

  /** Stops between chunks; an operation cut short ends FAILED, its rules unflagged. */
  async close(): Promise<void> {
    this.stopping = true;
    await Promise.allSettled([...this.running]);
  }

  private async run(db: Kysely<Database>, actor: Actor, operationId: string, items: Item[]): Promise<void> {
    const status: BulkStatus = { operationId, status: 'RUNNING', counts: emptyCounts(), errors: [] };
    this.metrics.bulkStarted();
    try {
      await yieldToEventLoop();
      const slice = new TimeSlice();
      for (let start = 0; start < items.length; start += CHUNK_SIZE) {
        if (this.stopping) throw new Error('the service stopped before the operation ended');
        await this.save(db, status);
        const before = { counts: { ...status.counts }, errors: status.errors.length };
        // A chunk the engine aborts for another transaction's sake (a deadlock with a
        // concurrent operation over the same rules, in another order) is run again whole;
        // the counts and errors it had added are taken back first, so it adds them once.
        const changes = await inTransaction(db, async (trx) => {
          status.counts = { ...before.counts };
          status.errors.length = before.errors;
          const chunk = items.slice(start, start + CHUNK_SIZE);
          await lockRules(trx, actor.studioId, [...new Set(chunk.flatMap((item) => item.id ?? []))]);
          const done: RuleChange[] = [];
          for (const [offset, item] of chunk.entries()) {
            const change = await this.apply(trx, actor, operationId, item, start + offset, status);
            if (change) done.push(change);
            // SQLite answers synchronously, so a whole chunk would hold the event loop for
            // seconds; every few milliseconds the loop serves what waits (health checks, the
            // typeahead's answers from memory) while the transaction stays open. A count of
            // items would not do: one item may take 1 ms on an idle machine and 3 on a busy one.
            await slice.pass();
          }
          // The chunk's deliveries commit with it (the outbox).
          await enqueueRuleChanges(trx, actor.studioId, done, this.now());
          if (done.length > 0) await recordChange(trx, bulkChunkEvent(actor, operationId, done, this.now()));
          // The commit is one synchronous call on SQLite: start it on a fresh turn of the
          // loop, so it is not added to the slice the last items used.
          await yieldToEventLoop();
          return done;
        });
        const failed = status.errors.slice(before.errors).map((error) => error.operation);
        this.metrics.bulkChunkCommitted(before.counts, status.counts, failed);
        this.webhooks.wake();
        if (changes.some((change) => change.removed || change.stored.rule.live !== null)) {
          await this.liveChanged(
            actor.studioId,
            changes.map((change) => change.stored.rule.id),
          );
        }
        await yieldToEventLoop();
      }
      status.status = 'DONE';
    } catch (error) {
      this.log.error({ err: error, operationId }, 'bulk operation failed');
      status.status = 'FAILED';
      status.errors.push({ operation: 'create', index: -1, message: (error as Error).message });
    }
    this.metrics.bulkEnded(status.status);
    const { created, updated, deleted, published } = status.counts;
    this.wrote(created + updated + deleted + published);
    await inTransaction(db, (trx) => clearBulkOperation(trx, operationId)).catch(() => {});
    await this.save(db, status, true).catch(() => {});
  }

  /** One item; its own failure (bad body, unknown id) is recorded and the rest goes on. */
  private async apply(
    trx: Kysely<Database>,
    actor: Actor,
    operationId: string,
    item: Item,
    index: number,
    status: BulkStatus,
  ): Promise<RuleChange | undefined> {
    const now = this.now();
    try {
      switch (item.operation) {
        case 'create': {
          const body = itemBody(createItems, item.body);
          const stored = await createRule(trx, actor, body, now, (rule) => {
            rule.meta.bulkOperationId = operationId;
          });
          status.counts.created += 1;
          return { stored, removed: false };
        }
        case 'update': {
          const body = itemBody(updateItems, item.body);
          const change = await updateRuleStaging(trx, actor, item.id!, body, undefined, now);
          status.counts.updated += 1;
          return change;
        }
        case 'delete': {
          const change = await deleteRuleOrMark(trx, actor, item.id!, now);
          status.counts.deleted += 1;
          return change;
        }
        case 'publish': {
          const change = await publishRule(trx, actor, item.id!, now);
          status.counts.published += 1;
          return change;
        }
      }
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      status.counts.failed += 1;
      status.errors.push({
        operation: item.operation,
        index,
        ...(item.id === undefined ? {} : { id: item.id }),
        message: error.message,
      });
      return undefined;
    }
  }

  private async save(db: Kysely<Database>, status: BulkStatus, finished = false): Promise<void> {
    await saveBulkOperation(db, status, this.now().toISOString(), finished);
  }
}

function itemsOf(request: BulkRequest): Item[] {
  const items: Item[] = [
    ...(request.create ?? []).map((body): Item => ({ operation: 'create', body })),
    ...(request.update ?? []).map((body): Item => ({ operation: 'update', body, id: idOf(body) })),
    ...(request.delete ?? []).map((id): Item => ({ operation: 'delete', id })),
    ...(request.publish ?? []).map((id): Item => ({ operation: 'publish', id })),
  ];
  const missing = items.findIndex((item) => item.operation === 'update' && item.id === undefined);
  if (missing >= 0) {
    throw new ValidationError([
      { field: `update[${missing}].id`, message: 'every update needs the rule id' },
    ]);
  }
  if (items.length === 0 || items.length > MAX_ITEMS) {
    throw new ValidationError([
      {
        field: 'body',
        message: `a bulk operation takes 1 to ${MAX_ITEMS} items in create, update, delete, publish`,
      },
    ]);
  }
  return items;
}

// A bulk request is accepted whatever its items hold; each is checked against the schema of
// its single-rule route as it is processed, and a failure is that item's alone.
const createItems = Compile(RuleCreateBody);
const updateItems = Compile(RuleUpdateBody);

function itemBody<Schema extends TSchema>(
  validator: Validator<TProperties, Schema>,
  body: unknown,
): Static<Schema> {
  if (!validator.Check(body)) throw new ValidationError(fieldErrors([...validator.Errors(body)]));
  return body;
}

function idOf(body: unknown): string | undefined {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

function emptyCounts(): BulkStatus['counts'] {
  return { created: 0, updated: 0, deleted: 0, published: 0, failed: 0 };
}
