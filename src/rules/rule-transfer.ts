// Rules as the Objects area moves them between instances: whole (staging, live, who and
// when), read a page at a time for an export, written in the caller's transaction on import
// with their deliveries to the studio's sync targets (the outbox, so nothing leaves before commit).
import type { Kysely } from 'kysely';
import { ConflictError, ValidationError } from '../http/errors.js';
import type { Database } from '../storage/schema.js';
import { enqueueRuleChanges } from './deliveries.js';
import {
  insertRules,
  selectExternalIds,
  selectRulesByIds,
  selectStudioRulesAfter,
  updateRule,
} from './repository.js';
import { type PublishState, publishState, type Rule, type RuleContent } from './rule.js';
import type { RuleChange } from './rule-edits.js';
import { NEW_RULE_META, type StoredRule } from './rule-rows.js';
import { validateRuleContent } from './rule-validation.js';

/** A rule as exported: everything but its delivery bookkeeping, with its publish state. */
export interface TransferredRule extends Rule {
  publishState: PublishState;
}

/** A rule as an import document gives it: contents still to be checked. */
export interface RuleToImport extends Omit<Rule, 'staging' | 'live'> {
  staging: unknown;
  live: unknown;
}

/** The rules of a studio in id order, read `pageSize` at a time, so any number streams out. */
export async function* studioRulesForExport(
  db: Kysely<Database>,
  studioId: string,
  pageSize = 1000,
): AsyncGenerator<TransferredRule> {
  let after: string | undefined;
  for (;;) {
    const page = await selectStudioRulesAfter(db, studioId, after, pageSize);
    for (const { rule } of page) yield { ...rule, publishState: publishState(rule) };
    if (page.length < pageSize) return;
    after = page[page.length - 1]!.rule.id;
  }
}

/** The studio of each of these rule ids that exists. */
export async function existingRules(db: Kysely<Database>, ids: string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (let i = 0; i < ids.length; i += 500) {
    for (const { rule } of await selectRulesByIds(db, ids.slice(i, i + 500)))
      found.set(rule.id, rule.studioId);
  }
  return found;
}

/**
 * Writes a studio's rules from a document in the caller's transaction: new ones inserted,
 * existing ones (same id, same studio) replaced when `replace`. Contents are checked as an
 * edit's are; an id of another studio's rule or a taken externalId is a 409. The studio's sync
 * targets get a delivery of each, written in the same transaction.
 */
export async function importStudioRules(
  db: Kysely<Database>,
  studioId: string,
  rules: RuleToImport[],
  now: Date,
): Promise<{ created: string[]; replaced: string[] }> {
  const stored = new Map(
    (
      await selectAll(
        db,
        rules.map((rule) => rule.id),
      )
    ).map((s) => [s.rule.id, s]),
  );
  const checked = rules.map(checkedRule);
  for (const rule of checked) {
    const current = stored.get(rule.id);
    if (current && current.rule.studioId !== studioId) {
      throw ConflictError.taken('id', `rule ${rule.id} exists already, in studio ${current.rule.studioId}`);
    }
  }
  // Before any write: a taken externalId would otherwise fail a statement halfway.
  await assertExternalIdsFree(db, studioId, checked);
  const fresh: StoredRule[] = [];
  const changes: RuleChange[] = [];
  for (const rule of checked) {
    const current = stored.get(rule.id);
    if (!current) {
      fresh.push({ rule, meta: { ...NEW_RULE_META, liveVersion: rule.live === null ? 0 : 1 } });
      continue;
    }
    const meta = {
      ...current.meta,
      stagingVersion: current.meta.stagingVersion + 1,
      liveVersion: current.meta.liveVersion + (rule.live === null ? 0 : 1),
    };
    const next = { rule, meta };
    if (!(await updateRule(db, next, current.rule.lastModified))) {
      throw new ConflictError(`rule ${rule.id} changed while it was imported; try again`);
    }
    changes.push({ stored: next, removed: false });
  }
  await insertRules(db, fresh);
  const replaced = changes.map((change) => change.stored.rule.id);
  changes.push(...fresh.map((s) => ({ stored: s, removed: false })));
  await enqueueRuleChanges(db, studioId, changes, now);
  return { created: fresh.map((s) => s.rule.id), replaced };
}

async function selectAll(db: Kysely<Database>, ids: string[]): Promise<StoredRule[]> {
  const all: StoredRule[] = [];
  for (let i = 0; i < ids.length; i += 500) all.push(...(await selectRulesByIds(db, ids.slice(i, i + 500))));
  return all;
}

/** The rule with its contents checked and normalised as an edit's are. */
function checkedRule(input: RuleToImport): Rule {
  const at = (field: string) => `rule:${input.id}.${field}`;
  const staging = validateRuleContent(input.staging);
  const errors = staging.ok ? [] : staging.errors.map((e) => ({ ...e, field: at(`staging.${e.field}`) }));
  let live: RuleContent | null = null;
  if (input.live !== null) {
    const checked = validateRuleContent(input.live);
    if (checked.ok) live = checked.value;
    else errors.push(...checked.errors.map((e) => ({ ...e, field: at(`live.${e.field}`) })));
    if (checked.ok && staging.ok && checked.value.type !== staging.value.type) {
      errors.push({ field: at('live.type'), message: 'live must be of the type of staging' });
    }
  }
  if (!staging.ok || errors.length > 0) throw new ValidationError(errors);
  return { ...input, staging: staging.value, live };
}

/** Each externalId once among the rules, and held by no other rule of the studio. */
async function assertExternalIdsFree(db: Kysely<Database>, studioId: string, rules: Rule[]): Promise<void> {
  const wanted = new Map<string, string>();
  for (const rule of rules) {
    if (rule.externalId === null) continue;
    if (wanted.has(rule.externalId)) throw takenExternalId(studioId, rule.externalId);
    wanted.set(rule.externalId, rule.id);
  }
  for (const [externalId, holder] of await selectExternalIds(db, studioId, [...wanted.keys()])) {
    if (wanted.get(externalId) !== holder) throw takenExternalId(studioId, externalId);
  }
}

function takenExternalId(studioId: string, externalId: string): ConflictError {
  return ConflictError.taken(
    'externalId',
    `studio ${studioId} has a rule with externalId ${externalId} already`,
  );
}
