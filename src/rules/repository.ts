// SQL of single rules: reading one, writing one (with its side rows), and the
// candidates of a CONFLICTS check. The listing's SQL is in listing-repository.ts.
import { type Kysely, sql } from 'kysely';
import type { Database } from '../storage/schema.js';
import { facetRows, type RuleRow, ruleRow, type StoredRule, toStoredRule, wordRows } from './rule-rows.js';

// Rows per INSERT: well under SQLite's and PostgreSQL's limits on bound parameters.
const ROWS_PER_INSERT = 500;

/** A rule of the studio by id or externalId. */
export async function selectRule(
  db: Kysely<Database>,
  studioId: string,
  idOrExternalId: string,
): Promise<StoredRule | undefined> {
  const row = await db
    .selectFrom('rule')
    .selectAll()
    .where('studio_id', '=', studioId)
    .where((eb) => eb.or([eb('id', '=', idOrExternalId), eb('external_id', '=', idOrExternalId)]))
    // An id wins over another rule's externalId that happens to spell it.
    .orderBy(sql`case when id = ${idOrExternalId} then 0 else 1 end`)
    .limit(1)
    .executeTakeFirst();
  return row && toStoredRule(row);
}

export async function selectRulesByIds(db: Kysely<Database>, ids: string[]): Promise<StoredRule[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('rule').selectAll().where('id', 'in', ids).execute();
  return rows.map(toStoredRule);
}

export async function externalIdTaken(db: Kysely<Database>, studioId: string, externalId: string) {
  const row = await db
    .selectFrom('rule')
    .select('id')
    .where('studio_id', '=', studioId)
    .where('external_id', '=', externalId)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Inserts one rule with its side rows, unless another rule of the studio holds its externalId:
 * false then, and nothing written. No error is raised, so a caller's transaction stays usable.
 */
export async function insertRule(db: Kysely<Database>, stored: StoredRule): Promise<boolean> {
  const result = await db
    .insertInto('rule')
    .values(ruleRow(stored))
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  if (Number(result.numInsertedOrUpdatedRows ?? 0) !== 1) return false;
  await insertSideRows(db, [stored]);
  return true;
}

/** Inserts rules with their side rows (in chunks: bulk work and benchmark set-up use it too). */
export async function insertRules(db: Kysely<Database>, rules: StoredRule[]): Promise<void> {
  await insertChunked(
    db,
    'rule',
    rules.map((stored) => ruleRow(stored)),
  );
  await insertSideRows(db, rules);
}

/**
 * Replaces a stored rule, when its lastModified is still `expectedLastModified`.
 * Answers false when another write came first.
 */
export async function updateRule(
  db: Kysely<Database>,
  stored: StoredRule,
  expectedLastModified: string,
): Promise<boolean> {
  const {
    id,
    studio_id: _studio,
    creation_date: _created,
    created_by: _creator,
    ...changes
  } = ruleRow(stored);
  const result = await db
    .updateTable('rule')
    .set(changes)
    .where('id', '=', id)
    .where('last_modified', '=', expectedLastModified)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return false;
  await db.deleteFrom('rule_facet').where('rule_id', '=', id).execute();
  await db.deleteFrom('rule_word').where('rule_id', '=', id).execute();
  await insertSideRows(db, [stored]);
  return true;
}

/**
 * Deletes a rule; its side rows go with it (the foreign keys cascade). False when it was gone
 * already. The rule row is locked first, as every other write of a rule does, so that a
 * concurrent edit and delete wait for each other instead of deadlocking.
 */
export async function deleteRule(db: Kysely<Database>, id: string): Promise<boolean> {
  const result = await db.deleteFrom('rule').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** Sets or clears the bulk operation rules take part in. */
export async function markBulkOperation(
  db: Kysely<Database>,
  ruleIds: string[],
  operationId: string | null,
): Promise<void> {
  for (let i = 0; i < ruleIds.length; i += ROWS_PER_INSERT) {
    await db
      .updateTable('rule')
      .set({ bulk_operation_id: operationId })
      .where('id', 'in', ruleIds.slice(i, i + ROWS_PER_INSERT))
      .execute();
  }
}

export async function clearBulkOperation(db: Kysely<Database>, operationId: string): Promise<void> {
  await db
    .updateTable('rule')
    .set({ bulk_operation_id: null })
    .where('bulk_operation_id', '=', operationId)
    .execute();
}

/** Records delivery of one content version to the sync targets (never moving backwards). */
export async function recordSync(
  db: Kysely<Database>,
  id: string,
  stage: 'staging' | 'live',
  version: number,
  outcome: { ok: true; at: string } | { ok: false },
): Promise<void> {
  if (stage === 'staging') {
    const set = outcome.ok
      ? { staging_synced_version: version, staging_synced_at: outcome.at, staging_failed_version: null }
      : { staging_failed_version: version };
    await db.updateTable('rule').set(set).where('id', '=', id).execute();
  } else {
    const set = outcome.ok
      ? { live_synced_version: version, live_synced_at: outcome.at, live_failed_version: null }
      : { live_failed_version: version };
    await db.updateTable('rule').set(set).where('id', '=', id).execute();
  }
}

/**
 * Rules of studios with sync targets whose content version has neither reached the
 * targets nor finally failed, in id order after `afterId`: what a starting node delivers.
 */
export async function selectUndeliveredRules(
  db: Kysely<Database>,
  studioId: string,
  afterId: string,
  limit: number,
): Promise<string[]> {
  const rows = await db
    .selectFrom('rule')
    .select('rule.id')
    .where('rule.studio_id', '=', studioId)
    .where('rule.id', '>', afterId)
    .where((eb) =>
      eb.or([
        eb.and([
          eb('staging_version', '>', eb.fn.coalesce('staging_synced_version', eb.lit(0))),
          eb('staging_version', '>', eb.fn.coalesce('staging_failed_version', eb.lit(0))),
        ]),
        eb.and([
          eb('live_version', '>', eb.fn.coalesce('live_synced_version', eb.lit(0))),
          eb('live_version', '>', eb.fn.coalesce('live_failed_version', eb.lit(0))),
        ]),
      ]),
    )
    .orderBy('rule.id')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/** Whether a studio has any rule (a studio with rules is deleted only when forced). */
export async function anyRuleOfStudio(db: Kysely<Database>, studioId: string): Promise<boolean> {
  const row = await db
    .selectFrom('rule')
    .select('id')
    .where('studio_id', '=', studioId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** A facet value rules may share (kind `target`, `position` or `type`): what CONFLICTS looks candidates up by. */
export interface FacetKey {
  kind: string;
  value: string;
  field: string;
}

/**
 * The first `limit` rules of each facet key (in id order), for keys of one studio:
 * each key is one index range, read no further than the limit, so a document that
 * thousands of rules target costs no more than a rare one.
 */
export async function selectFacetPostings(
  db: Kysely<Database>,
  studioId: string,
  keys: readonly FacetKey[],
  limit: number,
): Promise<Array<FacetKey & { rule_id: string }>> {
  const perKey = keys.map((key, index) =>
    db
      .selectFrom(
        db
          .selectFrom('rule_facet')
          .select(['kind', 'value', 'field', 'rule_id'])
          .where('studio_id', '=', studioId)
          .where('kind', '=', key.kind)
          .where('value', '=', key.value)
          .where('field', '=', key.field)
          .orderBy('rule_id')
          .limit(limit)
          .as(`k${index}`),
      )
      .selectAll(),
  );
  const [first, ...rest] = perKey;
  if (!first) return [];
  return rest.reduce((all, next) => all.unionAll(next), first).execute();
}

/** The staging contents of rules, by id (unparsed). */
export async function selectStagingContents(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<Array<{ id: string; staging: string }>> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('rule')
    .select(['id', 'staging'])
    .where('id', 'in', [...ids])
    .execute();
}

async function insertSideRows(db: Kysely<Database>, rules: StoredRule[]): Promise<void> {
  await insertChunked(
    db,
    'rule_facet',
    rules.flatMap(({ rule }) => facetRows(rule)),
  );
  await insertChunked(
    db,
    'rule_word',
    rules.flatMap(({ rule }) => wordRows(rule)),
  );
}

async function insertChunked<Table extends 'rule' | 'rule_facet' | 'rule_word'>(
  db: Kysely<Database>,
  table: Table,
  rows: RuleRow[] | ReturnType<typeof facetRows> | ReturnType<typeof wordRows>,
): Promise<void> {
  const perInsert = table === 'rule' ? 100 : ROWS_PER_INSERT;
  for (let i = 0; i < rows.length; i += perInsert) {
    // The three row types are the tables' insertables; Kysely cannot relate a union of tables to a union of rows.
    await db
      .insertInto(table)
      .values(rows.slice(i, i + perInsert) as never)
      .execute();
  }
}
