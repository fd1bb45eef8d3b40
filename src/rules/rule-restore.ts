// Earlier versions of a rule, from the history: the events of one rule (also after it was
// removed), and the restore of the content an event recorded as the rule's staging, in one
// step, recreating the rule under its id when it was removed.
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
import { insertRule, selectRule, updateRule } from './repository.js';
import type { Rule, RuleContent } from './rule.js';
import { applyEdit, type RuleChange } from './rule-edits.js';
import { NEW_RULE_META, type StoredRule } from './rule-rows.js';
import { validateRuleUpdate } from './rule-validation.js';

/** What a restore did: the change, and whether the rule had been removed and came back. */
export interface RestoredRule extends RuleChange {
  recreated: boolean;
}

/**
 * The history of a rule of the studio, newest first: the rule named by id or externalId, or
 * a rule removed from the studio by its id. Events from before the studio was created (under
 * this id, by an earlier studio) are not the studio's.
 */
export async function ruleHistory(
  db: Kysely<Database>,
  studioId: string,
  id: string,
  paging: { page: number; size: number },
): Promise<Page<HistoryEvent>> {
  const stored = await selectRule(db, studioId, id);
  const object = { studioId, kind: 'rule', id: stored?.rule.id ?? id };
  return studioObjectHistory(db, object, stored !== undefined, paging);
}

/**
 * Makes the staging content that a history event recorded of the rule the rule's staging
 * again (live stays as it is: publishing is a step of its own). The content is the rule as
 * the event left it, or as it was when the event removed it. A deletion mark is not content:
 * the restored staging is never marked. A rule removed since is created again with its id,
 * externalId and creation, as a draft.
 */
export async function restoreRuleVersion(
  db: Kysely<Database>,
  actor: Actor,
  id: string,
  historyId: string,
  ifMatch: string | undefined,
  now: Date,
): Promise<RestoredRule> {
  const since = await studioSince(db, actor.studioId);
  const event = await getEvent(db, historyId);
  return editVersioned(db, 'rule', ifMatch, async (trx) => {
    const stored = await selectRule(trx, actor.studioId, id);
    const ruleId = stored?.rule.id ?? id;
    const record = versionIn<Rule>(event, { studioId: actor.studioId, kind: 'rule', id: ruleId }, since);
    if (stored) {
      requireVersion('rule', ifMatch, stored.rule.lastModified);
      const next = applyEdit(stored, { staging: restoredContent(record, stored.rule, event) }, actor, now);
      if (!(await updateRule(trx, next, stored.rule.lastModified))) return 'stale';
      return { stored: next, removed: false, previous: stored, recreated: false };
    }
    if (ifMatch !== undefined) {
      throw new ConflictError(`rule ${ruleId} was removed: it has no version for If-Match to name`);
    }
    return recreate(trx, actor, record, restoredContent(record, record, event), now);
  });
}

/** The rule of a removed rule's record, back as a draft; 'stale' when a concurrent restore came first. */
async function recreate(
  trx: Kysely<Database>,
  actor: Actor,
  record: Rule,
  staging: RuleContent,
  now: Date,
): Promise<RestoredRule | 'stale'> {
  const stored: StoredRule = {
    rule: {
      id: record.id,
      studioId: actor.studioId,
      externalId: record.externalId,
      contentType: record.contentType,
      migratedId: record.migratedId,
      staging,
      live: null,
      createdBy: record.createdBy,
      creationDate: record.creationDate,
      lastModifiedBy: recordedAs(actor),
      // Later than any version the rule had, so an old ETag never names the new one.
      lastModified: nextLastModified(now, record.lastModified),
    },
    meta: { ...NEW_RULE_META },
  };
  let inserted: boolean;
  try {
    inserted = await insertRule(trx, stored);
  } catch (error) {
    if (isMissingParent(error)) throw new NotFoundError(`no studio ${actor.studioId}`);
    throw error;
  }
  if (inserted) return { stored, removed: false, recreated: true };
  // Another restore brought it back meanwhile: the next attempt restores over that one.
  if (await selectRule(trx, actor.studioId, record.id)) return 'stale';
  throw ConflictError.taken(
    'externalId',
    `another rule now has externalId ${record.externalId}: rule ${record.id} cannot come back with it`,
  );
}

/**
 * The recorded staging, unmarked, checked as a PUT of it would be today: a content that no
 * longer passes (a limit lowered since) is a conflict naming its fields, not a 500.
 */
function restoredContent(record: Rule, identity: Rule, event: HistoryEvent): RuleContent {
  const content = validateRuleUpdate(
    { ...record.staging, deleted: false },
    { type: identity.staging.type, externalId: identity.externalId, contentType: identity.contentType },
  );
  if (content.ok) return content.value;
  throw new AppError(
    'conflict',
    `the content history event ${event.id} recorded is not a valid rule today: ${content.errors
      .map((e) => e.message)
      .join('; ')}`,
    { errors: content.errors },
  );
}
