// The edits of one rule: create, read, edit staging, and the publish workflow, each
// in a transaction of its own or the caller's (bulk). `RulesService` answers requests with them.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { ConflictError, NotFoundError, ValidationError } from '../http/errors.js';
import { removeLinksOf } from '../links/service.js';
import { type Actor, recordedAs } from '../oauth/actor.js';
import { isMissingParent } from '../storage/constraint-errors.js';
import type { Database } from '../storage/schema.js';
import { inTransaction } from '../storage/transaction.js';
import {
  editVersioned,
  matchesVersion,
  nextLastModified,
  requireVersion,
  versionEtag,
} from '../storage/versioned-edit.js';
import type { StudioContent } from '../studios/service.js';
import {
  anyRuleOfStudio,
  deleteRule,
  externalIdTaken,
  insertRule,
  selectRule,
  updateRule,
} from './repository.js';
import { type Rule, type RuleContent, sameContent } from './rule.js';
import { NEW_RULE_META, type StoredRule } from './rule-rows.js';
import { validateNewRule, validateRuleUpdate } from './rule-validation.js';
import type { RuleCreateBody, RuleUpdateBody } from './schemas.js';

/** What a write did: the rule as it now is (or was, when `removed`). */
export interface RuleChange {
  stored: StoredRule;
  removed: boolean;
  /** The rule before an edit that kept it (for the history). */
  previous?: StoredRule;
}

export async function createRule(
  db: Kysely<Database>,
  actor: Actor,
  body: RuleCreateBody,
  now: Date,
  adjust: (stored: StoredRule) => void = () => {},
): Promise<StoredRule> {
  const input = validateNewRule(body);
  if (!input.ok) throw new ValidationError(input.errors);
  const { content, externalId, contentType, migratedId } = input.value;
  const taken = () =>
    ConflictError.taken('externalId', `a rule with externalId ${externalId} already exists`);
  if (externalId !== null && (await externalIdTaken(db, actor.studioId, externalId))) throw taken();
  const at = now.toISOString();
  const by = recordedAs(actor);
  const stored: StoredRule = {
    rule: {
      id: randomUUID(),
      studioId: actor.studioId,
      externalId,
      contentType,
      migratedId,
      staging: content,
      live: null,
      createdBy: by,
      creationDate: at,
      lastModifiedBy: by,
      lastModified: at,
    },
    meta: { ...NEW_RULE_META },
  };
  adjust(stored);
  let inserted: boolean;
  try {
    // A concurrent create of the same externalId may pass the check above; the unique index decides.
    inserted = await inTransaction(db, (trx) => insertRule(trx, stored));
  } catch (error) {
    // The studio was deleted since the token was checked.
    if (isMissingParent(error)) throw new NotFoundError(`no studio ${actor.studioId}`);
    throw error;
  }
  if (!inserted) throw taken();
  return stored;
}

/** A rule of the studio by id or externalId; another studio's rule is not found either. */
export async function getRule(db: Kysely<Database>, studioId: string, id: string): Promise<StoredRule> {
  const stored = await selectRule(db, studioId, id);
  if (!stored) throw new NotFoundError(`no rule ${id}`);
  return stored;
}

/** `PUT`: replaces staging. `deleted: true` marks the rule (a draft goes at once). */
export function updateRuleStaging(
  db: Kysely<Database>,
  actor: Actor,
  id: string,
  body: RuleUpdateBody,
  ifMatch: string | undefined,
  now: Date,
): Promise<RuleChange> {
  return modify(db, actor, id, now, ifMatch, ({ rule }) => {
    const content = validateRuleUpdate(body, {
      type: rule.staging.type,
      externalId: rule.externalId,
      contentType: rule.contentType,
    });
    if (!content.ok) throw new ValidationError(content.errors);
    if (content.value.deleted && rule.live === null) return 'remove';
    return { staging: content.value };
  });
}

/** Copies staging to live; a rule marked for deletion goes entirely. */
export function publishRule(db: Kysely<Database>, actor: Actor, id: string, now: Date) {
  return modify(db, actor, id, now, undefined, ({ rule }) =>
    rule.staging.deleted ? 'remove' : { live: rule.staging },
  );
}

/** Removes live: the rule is a draft again, and no longer marked for deletion. */
export function unpublishRule(db: Kysely<Database>, actor: Actor, id: string, now: Date) {
  return modify(db, actor, id, now, undefined, ({ rule }) => ({
    live: null,
    staging: { ...rule.staging, deleted: false },
  }));
}

/** Removes a draft at once; marks a published rule for removal by the next publish. */
export function deleteRuleOrMark(db: Kysely<Database>, actor: Actor, id: string, now: Date) {
  return modify(db, actor, id, now, undefined, ({ rule }) =>
    rule.live === null ? 'remove' : { staging: { ...rule.staging, deleted: true } },
  );
}

/** Clears the deletion mark. */
export function restoreRule(db: Kysely<Database>, actor: Actor, id: string, now: Date) {
  return modify(db, actor, id, now, undefined, ({ rule }) => ({
    staging: { ...rule.staging, deleted: false },
  }));
}

type Edit = 'remove' | { staging?: RuleContent; live?: RuleContent | null };

/**
 * Applies one edit to a rule in a transaction. The write only lands if the rule
 * is still as read (its lastModified), so concurrent edits never overwrite each other.
 * An edit that named no version (no If-Match) is applied again to the rule as the other
 * request left it: four concurrent publishes of one content all succeed, with one live version.
 */
export async function modify(
  db: Kysely<Database>,
  actor: Actor,
  id: string,
  now: Date,
  ifMatch: string | undefined,
  edit: (stored: StoredRule) => Edit,
): Promise<RuleChange> {
  return editVersioned(db, 'rule', ifMatch, (trx) => tryEdit(trx, actor, id, now, ifMatch, edit));
}

/** One attempt of `modify`: 'stale' when another write landed between reading and writing. */
async function tryEdit(
  trx: Kysely<Database>,
  actor: Actor,
  id: string,
  now: Date,
  ifMatch: string | undefined,
  edit: (stored: StoredRule) => Edit,
): Promise<RuleChange | 'stale'> {
  const stored = await getRule(trx, actor.studioId, id);
  requireVersion('rule', ifMatch, stored.rule.lastModified);
  const change = edit(stored);
  if (change === 'remove') {
    // Removed by a concurrent request meanwhile: the next attempt finds it gone (404).
    if (!(await deleteRule(trx, stored.rule.id))) return 'stale';
    await removeLinksOf(trx, `rule:${stored.rule.id}`);
    return { stored, removed: true };
  }
  const next = applyEdit(stored, change, actor, now);
  if (!(await updateRule(trx, next, stored.rule.lastModified))) return 'stale';
  return { stored: next, removed: false, previous: stored };
}

/** The rule after an edit: versions count content changes, lastModified always moves forward. */
export function applyEdit(stored: StoredRule, change: Exclude<Edit, 'remove'>, actor: Actor, now: Date) {
  const { rule, meta } = stored;
  const staging = change.staging ?? rule.staging;
  const live = change.live === undefined ? rule.live : change.live;
  const next: Rule = {
    ...rule,
    staging,
    live,
    lastModifiedBy: recordedAs(actor),
    lastModified: nextLastModified(now, rule.lastModified),
  };
  return {
    rule: next,
    meta: {
      ...meta,
      stagingVersion: meta.stagingVersion + (sameContent(staging, rule.staging) ? 0 : 1),
      liveVersion: meta.liveVersion + (sameContent(live, rule.live) ? 0 : 1),
    },
  };
}

/** The ETag of a rule: its lastModified, which changes with every write. */
export function etagOf(rule: Rule): string {
  return versionEtag(rule.lastModified);
}

export { matchesVersion };

/** A studio's rules, which the studios area keeps from going with an unforced delete. */
export const studioRules: StudioContent = { name: 'rules', exists: anyRuleOfStudio };
