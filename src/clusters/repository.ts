import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { SearchClusterTable } from './tables.js';

// Well below SQLite's and PostgreSQL's limits on bound parameters.
const IDS_PER_QUERY = 500;

/** Every stored definition, by id. */
export function selectClusters(db: Kysely<Database>): Promise<SearchClusterTable[]> {
  return db.selectFrom('search_cluster').selectAll().orderBy('id').execute();
}

/** The stored definitions among `ids`, by id. */
export async function selectClustersById(db: Kysely<Database>, ids: string[]): Promise<SearchClusterTable[]> {
  const rows: SearchClusterTable[] = [];
  for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
    const chunk = ids.slice(i, i + IDS_PER_QUERY);
    rows.push(...(await db.selectFrom('search_cluster').selectAll().where('id', 'in', chunk).execute()));
  }
  return rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export function selectCluster(db: Kysely<Database>, id: string): Promise<SearchClusterTable | undefined> {
  return db.selectFrom('search_cluster').selectAll().where('id', '=', id).executeTakeFirst();
}

/** When each definition last changed. */
export function selectClusterVersions(db: Kysely<Database>): Promise<{ id: string; updated_at: string }[]> {
  return db.selectFrom('search_cluster').select(['id', 'updated_at']).execute();
}

/** Inserts a definition unless its id is taken; true when it was inserted. */
export async function insertCluster(db: Kysely<Database>, row: SearchClusterTable): Promise<boolean> {
  const result = await db
    .insertInto('search_cluster')
    .values(row)
    .onConflict((oc) => oc.column('id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Inserts a definition or replaces the stored one, keeping its creation time. */
export async function upsertCluster(db: Kysely<Database>, row: SearchClusterTable): Promise<void> {
  const { id: _id, created_at: _createdAt, ...changes } = row;
  await db
    .insertInto('search_cluster')
    .values(row)
    .onConflict((oc) => oc.column('id').doUpdateSet(changes))
    .execute();
}

/** Deletes a definition; true when it existed. */
export async function deleteCluster(db: Kysely<Database>, id: string): Promise<boolean> {
  const result = await db.deleteFrom('search_cluster').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
