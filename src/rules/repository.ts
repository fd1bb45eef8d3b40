// SQL of single rules: reading one, writing one (with its side rows), and the
// candidates of a CONFLICTS check. The listing's SQL is in listing-repository.ts.
import { type Kysely, sql } from 'kysely';
import { locksRowByRow } from '../storage/dialect.js';
import type { Database } from '../storage/schema.js';
import { facetRows, type RuleRow, ruleRow, type StoredRule, toStoredRule, wordRows } from './rule-rows.js';
import { deleteTextEntries, insertTextEntries } from './text-index-repository.js';

// Rows per INSERT: well under SQLite's and PostgreSQL's limits on bound parameters.
const ROWS_PER_INSERT = 500;

/** A rule of the studio by id or externalId. */
/**
 * Locks the studio's rules named (by id or externalId) until the transaction ends, in id
 * order: a bulk chunk takes them all first, so two operations over the same rules queue
 * instead of each locking some and waiting for the other's (a deadlock). Up to a chunk of names.
 */
export async function lockRules(db: Kysely<Database>, studioId: string, names: string[]): Promise<void> {
  if (names.length === 0 || !locksRowByRow(db)) return;
  await db
    .selectFrom('rule')
    .select('id')
    .where('studio_id', '=', studioId)
    .where((eb) => eb.or([eb('id', 'in', names), eb('external_id', 'in', names)]))
    .orderBy('id')
    .forUpdate()
    .execute();
}

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
  await deleteTextEntries(db, id);
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

/**
 * Records delivery of one content version to the sync targets. Never moving backwards: a
 * delivery of an older version that ends after a newer one's changes nothing.
 */
export async function recordSync(
  db: Kysely<Database>,
  id: string,
  stage: 'staging' | 'live',
  version: number,
  outcome: { ok: true; at: string } | { ok: false },
): Promise<void> {
  const synced = stage === 'staging' ? 'staging_synced_version' : 'live_synced_version';
  const set =
    stage === 'staging'
      ? outcome.ok
        ? { staging_synced_version: version, staging_synced_at: outcome.at, staging_failed_version: null }
        : { staging_failed_version: version }
      : outcome.ok
        ? { live_synced_version: version, live_synced_at: outcome.at, live_failed_version: null }
        : { live_failed_version: version };
  await db
    .updateTable('rule')
    .set(set)
    .where('id', '=', id)
    .where((eb) => eb.or([eb(synced, 'is', null), eb(synced, '<', version)]))
    .execute();
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
  await insertTextEntries(
    db,
    rules.map(({ rule }) => rule),
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

/** A studio's rules after `afterId` in id order, at most `limit`: the pages of an export. */
export async function selectStudioRulesAfter(
  db: Kysely<Database>,
  studioId: string,
  afterId: string | undefined,
  limit: number,
): Promise<StoredRule[]> {
  let query = db.selectFrom('rule').selectAll().where('studio_id', '=', studioId);
  if (afterId !== undefined) query = query.where('id', '>', afterId);
  const rows = await query.orderBy('id').limit(limit).execute();
  return rows.map(toStoredRule);
}

/** Which of these externalIds rules of the studio hold, with the id of the rule holding each. */
export async function selectExternalIds(
  db: Kysely<Database>,
  studioId: string,
  externalIds: string[],
): Promise<Map<string, string>> {
  const taken = new Map<string, string>();
  for (let i = 0; i < externalIds.length; i += ROWS_PER_INSERT) {
    const rows = await db
      .selectFrom('rule')
      .select(['id', 'external_id'])
      .where('studio_id', '=', studioId)
      .where('external_id', 'in', externalIds.slice(i, i + ROWS_PER_INSERT))
      .execute();
    for (const row of rows) if (row.external_id !== null) taken.set(row.external_id, row.id);
  }
  return taken;
}
