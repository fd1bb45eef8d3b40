// SQL of single rewrites and of a studio's contents: reading, writing (with the word rows),
// the per-studio publish turn, and the contents evaluation reads. The listing's SQL is in
// listing-repository.ts.
import { type Kysely, sql } from 'kysely';
import { locksRowByRow } from '../storage/dialect.js';
import type { Database } from '../storage/schema.js';
import type { StoredRewrite } from './rewrite-record.js';
import { rewriteRow, rewriteWordRows, toStoredRewrite } from './rewrite-rows.js';

// Word rows per INSERT: well under both engines' limits on bound parameters.
const ROWS_PER_INSERT = 500;

/** A rewrite of the studio by id; another studio's is not found. */
export async function selectRewrite(
  db: Kysely<Database>,
  studioId: string,
  id: string,
): Promise<StoredRewrite | undefined> {
  const row = await db
    .selectFrom('query_rewrite')
    .selectAll()
    .where('studio_id', '=', studioId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toStoredRewrite(row);
}

// Ids per lock statement; the ids are sorted first, so the statements lock in one order too.
const LOCKS_PER_STATEMENT = 500;

/**
 * Locks the studio's rewrites of these ids until the transaction ends, in id order, so two
 * bulk requests over the same rewrites queue instead of deadlocking (see rules' lockRules).
 */
export async function lockRewrites(db: Kysely<Database>, studioId: string, ids: string[]): Promise<void> {
  if (!locksRowByRow(db)) return;
  const bytes = (id: string) => Buffer.from(id, 'utf8');
  const ordered = [...ids].sort((a, b) => Buffer.compare(bytes(a), bytes(b)));
  for (let i = 0; i < ordered.length; i += LOCKS_PER_STATEMENT) {
    await db
      .selectFrom('query_rewrite')
      .select('id')
      .where('studio_id', '=', studioId)
      .where('id', 'in', ordered.slice(i, i + LOCKS_PER_STATEMENT))
      // Byte order, as the sort above: in a chunk, the rows are locked in the statement's
      // order, and under a language collation that could differ from the order the chunks
      // were cut in, so two requests could still take rows of two chunks crosswise.
      .orderBy(sql`id collate "C"`)
      .forUpdate()
      .execute();
  }
}

export async function insertRewrite(db: Kysely<Database>, rewrite: StoredRewrite): Promise<void> {
  await db.insertInto('query_rewrite').values(rewriteRow(rewrite)).execute();
  await insertWords(db, rewrite);
}

/**
 * Inserts a rewrite unless one of its id exists: false then, and nothing written. No error is
 * raised, so the caller's transaction stays usable (two restores of one removed rewrite).
 */
export async function insertRewriteIfAbsent(db: Kysely<Database>, rewrite: StoredRewrite): Promise<boolean> {
  const result = await db
    .insertInto('query_rewrite')
    .values(rewriteRow(rewrite))
    .onConflict((oc) => oc.column('id').doNothing())
    .executeTakeFirst();
  if (Number(result.numInsertedOrUpdatedRows ?? 0) !== 1) return false;
  await insertWords(db, rewrite);
  return true;
}

/** Replaces a rewrite when its lastModified is still `expectedLastModified`; false when another write came first. */
export async function updateRewrite(
  db: Kysely<Database>,
  rewrite: StoredRewrite,
  expectedLastModified: string,
): Promise<boolean> {
  const { id, studio_id: _s, creation_date: _c, created_by: _b, ...changes } = rewriteRow(rewrite);
  const result = await db
    .updateTable('query_rewrite')
    .set(changes)
    .where('id', '=', id)
    .where('last_modified', '=', expectedLastModified)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return false;
  await db.deleteFrom('query_rewrite_word').where('rewrite_id', '=', id).execute();
  await insertWords(db, rewrite);
  return true;
}

/** Deletes a rewrite (its words cascade); false when it was gone already. */
export async function deleteRewrite(db: Kysely<Database>, id: string): Promise<boolean> {
  const result = await db.deleteFrom('query_rewrite').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/**
 * Takes the studio's publish turn: the row update waits for any other transaction holding
 * it (PostgreSQL row lock; SQLite runs one write transaction at a time anyway), so what the
 * caller reads next includes every publish committed before.
 */
export async function takePublishTurn(db: Kysely<Database>, studioId: string): Promise<void> {
  await db
    .insertInto('query_rewrite_publish')
    .values({ studio_id: studioId, publishes: 1 })
    .onConflict((oc) =>
      oc
        .column('studio_id')
        .doUpdateSet((eb) => ({ publishes: eb('query_rewrite_publish.publishes', '+', 1) })),
    )
    .execute();
}

/** Every rewrite of a studio, in creation order then id: the order evaluation gets them in. */
export async function selectStudioRewrites(db: Kysely<Database>, studioId: string): Promise<StoredRewrite[]> {
  const rows = await db
    .selectFrom('query_rewrite')
    .selectAll()
    .where('studio_id', '=', studioId)
    .orderBy('creation_date')
    .orderBy('id')
    .execute();
  return rows.map(toStoredRewrite);
}

/** The studio of each of these rewrites that exists (any studio's). */
export async function selectRewriteStudios(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<Array<{ id: string; studio_id: string }>> {
  if (ids.length === 0) return [];
  return db.selectFrom('query_rewrite').select(['id', 'studio_id']).where('id', 'in', ids).execute();
}

/** Whether a studio has any rewrite (a studio with rewrites is deleted only when forced). */
export async function anyRewriteOfStudio(db: Kysely<Database>, studioId: string): Promise<boolean> {
  const row = await db
    .selectFrom('query_rewrite')
    .select('id')
    .where('studio_id', '=', studioId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

async function insertWords(db: Kysely<Database>, rewrite: StoredRewrite): Promise<void> {
  const rows = rewriteWordRows(rewrite);
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    await db
      .insertInto('query_rewrite_word')
      .values(rows.slice(i, i + ROWS_PER_INSERT))
      .execute();
  }
}
