// What each request of the Rules API does, from checked input to the answer:
// the rule's edits (rule-edits.ts), its presentation with the extras asked for,
// and the deliveries of every change to the sync targets, written with the change.
import type { Kysely } from 'kysely';
import type { HistoryEvent } from '../history/schemas.js';
import { type ChangeEvent, recordChange } from '../history/service.js';
import { describeRestore } from '../history/versions.js';
import type { Page } from '../listing/page.js';
import type { Actor } from '../oauth/actor.js';
import type { Database } from '../storage/schema.js';
import { inTransaction } from '../storage/transaction.js';
import type { BulkRunner, BulkStatus } from './bulk.js';
import { enqueueRuleChanges } from './deliveries.js';
import { listRules, type RulePage } from './listing.js';
import { parseFields } from './listing-params.js';
import { extrasOf, presentRule } from './presentation.js';
import {
  createRule,
  deleteRuleOrMark,
  etagOf,
  getRule,
  publishRule,
  type RuleChange,
  restoreRule,
  unpublishRule,
  updateRuleStaging,
} from './rule-edits.js';
import { ruleEvent } from './rule-history.js';
import { restoreRuleVersion, ruleHistory } from './rule-restore.js';
import type { StoredRule } from './rule-rows.js';
import { listingScenario, type RulesMetrics } from './rules-metrics.js';
import type { LiveChangeListener } from './rules-parts.js';
import type {
  BulkRequest,
  FieldsQuery,
  ListingQuery,
  RuleCreateBody,
  RuleResponse,
  RuleUpdateBody,
} from './schemas.js';
import type { WebhookDelivery } from './webhook-delivery.js';

/** A rule as answered, with the ETag of its version. */
export interface AnsweredRule {
  rule: RuleResponse;
  etag: string;
}

/** The publish workflow's actions, each one `POST /em-rules/{id}/{action}`. */
export const RULE_ACTIONS = ['publish', 'unpublish', 'restore'] as const;
export type RuleAction = (typeof RULE_ACTIONS)[number];

const actions = { publish: publishRule, unpublish: unpublishRule, restore: restoreRule };

export class RulesService {
  constructor(
    private readonly now: () => Date,
    private readonly webhooks: WebhookDelivery,
    private readonly bulk: BulkRunner,
    private readonly metrics: RulesMetrics,
    private readonly liveChanged: LiveChangeListener = async () => {},
  ) {}

  /** A page of the listing; `reader` is where it reads (`Store.reader`: off the event loop on SQLite). */
  async list(reader: Kysely<Database>, studioId: string, query: ListingQuery): Promise<RulePage> {
    const started = performance.now();
    const page = await listRules(reader, studioId, query);
    this.metrics.listed(listingScenario(query), (performance.now() - started) / 1000);
    return page;
  }

  async get(db: Kysely<Database>, studioId: string, id: string, query: FieldsQuery): Promise<AnsweredRule> {
    return this.answer(db, await getRule(db, studioId, id), query);
  }

  async create(db: Kysely<Database>, actor: Actor, body: RuleCreateBody): Promise<AnsweredRule> {
    const change = await this.write(db, actor, 'create', async (trx) => ({
      stored: await createRule(trx, actor, body, this.now()),
      removed: false,
    }));
    return this.answer(db, change.stored);
  }

  async update(
    db: Kysely<Database>,
    actor: Actor,
    id: string,
    body: RuleUpdateBody,
    ifMatch?: string,
  ): Promise<AnsweredRule> {
    const change = await this.write(db, actor, 'update', (trx) =>
      updateRuleStaging(trx, actor, id, body, ifMatch, this.now()),
    );
    await this.followLive(change);
    return this.answer(db, change.stored);
  }

  /** Deletes a draft, or marks a published rule for deletion. */
  async remove(db: Kysely<Database>, actor: Actor, id: string): Promise<void> {
    await this.followLive(
      await this.write(db, actor, 'delete', (trx) => deleteRuleOrMark(trx, actor, id, this.now())),
    );
  }

  async act(db: Kysely<Database>, action: RuleAction, actor: Actor, id: string): Promise<AnsweredRule> {
    const change = await this.write(db, actor, action, (trx) => actions[action](trx, actor, id, this.now()));
    if (action === 'publish') this.metrics.published('api');
    await this.followLive(change, action === 'unpublish');
    return this.answer(db, change.stored);
  }

  /** A rule's history, newest first (also of a rule removed since, by its id). */
  history(
    db: Kysely<Database>,
    studioId: string,
    id: string,
    paging: { page: number; size: number },
  ): Promise<Page<HistoryEvent>> {
    return ruleHistory(db, studioId, id, paging);
  }

  /** Makes the content a history event recorded the rule's staging again; a removed rule comes back. */
  async restoreVersion(
    db: Kysely<Database>,
    actor: Actor,
    id: string,
    historyId: string,
    ifMatch?: string,
  ): Promise<AnsweredRule> {
    const change = await this.write(
      db,
      actor,
      'restore-version',
      (trx) => restoreRuleVersion(trx, actor, id, historyId, ifMatch, this.now()),
      (event, change) => describeRestore(`rule ${change.stored.rule.id}`, historyId)(event, change),
    );
    await this.followLive(change);
    return this.answer(db, change.stored);
  }

  startBulk(db: Kysely<Database>, actor: Actor, request: BulkRequest): Promise<{ operationId: string }> {
    return this.bulk.start(db, actor, request);
  }

  bulkStatus(db: Kysely<Database>, studioId: string, operationId: string): Promise<BulkStatus> {
    return this.bulk.status(db, studioId, operationId);
  }

  /**
   * What evaluates live rules follows a change that may alter them (a publish, an unpublish,
   * a removal, a deletion mark set or cleared) before the answer, so the editor's next
   * evaluation on this node already sees it.
   */
  private async followLive(change: RuleChange, unpublished = false): Promise<void> {
    if (unpublished || change.removed || change.stored.rule.live !== null) {
      await this.liveChanged(change.stored.rule.studioId, [change.stored.rule.id]);
    }
  }

  /**
   * One write with its deliveries to the sync targets, in one transaction: a change is never
   * committed without them. The sender is woken once it is.
   */
  private async write<Change extends RuleChange>(
    db: Kysely<Database>,
    actor: Actor,
    action: string,
    edit: (trx: Kysely<Database>) => Promise<Change>,
    describe: (event: ChangeEvent, change: Change) => ChangeEvent = (event) => event,
  ): Promise<Change> {
    const change = await inTransaction(db, async (trx) => {
      const change = await edit(trx);
      await enqueueRuleChanges(trx, actor.studioId, [change], this.now());
      await recordChange(trx, describe(ruleEvent(actor, action, change, this.now()), change));
      return change;
    });
    this.webhooks.wake();
    return change;
  }

  private async answer(
    db: Kysely<Database>,
    stored: StoredRule,
    query: FieldsQuery = {},
  ): Promise<AnsweredRule> {
    const extras = await extrasOf(db, stored.rule.studioId, [stored], parseFields(query));
    return { rule: presentRule(stored, extras.get(stored.rule.id)), etag: etagOf(stored.rule) };
  }
}
