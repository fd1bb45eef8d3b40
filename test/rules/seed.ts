// Many rules at once, written straight through the repository.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { insertRules } from '../../src/rules/repository.js';
import type { Rule, RuleContent } from '../../src/rules/rule.js';
import { NEW_RULE_META } from '../../src/rules/rule-rows.js';
import type { Database } from '../../src/storage/schema.js';

/** Rules of a studio written straight through the repository (quicker than the API for many). */
export async function seedRules(
  db: Kysely<Database>,
  studioId: string,
  contents: RuleContent[],
  /** False: in the caller's transaction (or none), in one go. */
  inTransactions = true,
) {
  const now = new Date().toISOString();
  const rules: Rule[] = contents.map((staging) => ({
    id: randomUUID(),
    studioId,
    externalId: null,
    contentType: 'RULE',
    migratedId: null,
    staging,
    live: null,
    createdBy: 'client:ci',
    creationDate: now,
    lastModifiedBy: 'client:ci',
    lastModified: now,
  }));
  if (!inTransactions) {
    await insertRules(
      db,
      rules.map((rule) => ({ rule, meta: NEW_RULE_META })),
    );
    return rules;
  }
  for (let i = 0; i < rules.length; i += 500) {
    await db.transaction().execute((trx) =>
      insertRules(
        trx,
        rules.slice(i, i + 500).map((rule) => ({ rule, meta: NEW_RULE_META })),
      ),
    );
  }
  return rules;
}
