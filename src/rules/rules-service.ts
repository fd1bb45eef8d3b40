// What each request of the Rules API does, from checked input to the answer:
// the rule's edits (service.ts), its presentation with the extras asked for,
// and the announcement of every change to webhook delivery.
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { BulkRunner, BulkStatus } from './bulk.js';
import { listRules, type RulePage } from './listing.js';
import { parseFields } from './listing-params.js';
import { extrasOf, presentRule } from './presentation.js';
import type { StoredRule } from './rule-rows.js';
import type {
  BulkRequest,
  FieldsQuery,
  ListingQuery,
  RuleCreateBody,
  RuleResponse,
  RuleUpdateBody,
} from './schemas.js';
import {
  type Actor,
  createRule,
  deleteRuleOrMark,
  etagOf,
  getRule,
  publishRule,
  type RuleChange,
  restoreRule,
  unpublishRule,
  updateRuleStaging,
} from './service.js';
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
    private readonly db: Kysely<Database>,
    private readonly now: () => Date,
    private readonly webhooks: WebhookDelivery,
    private readonly bulk: BulkRunner,
  ) {}

  list(studioId: string, query: ListingQuery): Promise<RulePage> {
    return listRules(this.db, studioId, query);
  }

  async get(studioId: string, id: string, query: FieldsQuery): Promise<AnsweredRule> {
    return this.answer(await getRule(this.db, studioId, id), query);
  }

  async create(actor: Actor, body: RuleCreateBody): Promise<AnsweredRule> {
    const stored = await createRule(this.db, actor, body, this.now());
    return this.answer(this.announce({ stored, removed: false }).stored);
  }

  async update(actor: Actor, id: string, body: RuleUpdateBody, ifMatch?: string): Promise<AnsweredRule> {
    const change = await updateRuleStaging(this.db, actor, id, body, ifMatch, this.now());
    return this.answer(this.announce(change).stored);
  }

  /** Deletes a draft, or marks a published rule for deletion. */
  async remove(actor: Actor, id: string): Promise<void> {
    this.announce(await deleteRuleOrMark(this.db, actor, id, this.now()));
  }

  async act(action: RuleAction, actor: Actor, id: string): Promise<AnsweredRule> {
    const change = await actions[action](this.db, actor, id, this.now());
    return this.answer(this.announce(change).stored);
  }

  startBulk(actor: Actor, request: BulkRequest): Promise<{ operationId: string }> {
    return this.bulk.start(actor, request);
  }

  bulkStatus(studioId: string, operationId: string): Promise<BulkStatus> {
    return this.bulk.status(studioId, operationId);
  }

  /** Hands the change to webhook delivery, which sends it in the background. */
  private announce(change: RuleChange): RuleChange {
    if (change.removed) this.webhooks.removed(change.stored);
    else this.webhooks.changed(change.stored.rule.studioId, change.stored.rule.id);
    return change;
  }

  private async answer(stored: StoredRule, query: FieldsQuery = {}): Promise<AnsweredRule> {
    const extras = await extrasOf(this.db, stored.rule.studioId, [stored], parseFields(query));
    return { rule: presentRule(stored, extras.get(stored.rule.id)), etag: etagOf(stored.rule) };
  }
}
