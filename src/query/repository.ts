import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { QueryKeyTable, QueryProfileTable } from './tables.js';

export function selectProfiles(db: Kysely<Database>, app: string): Promise<QueryProfileTable[]> {
  return db.selectFrom('query_profile').selectAll().where('app', '=', app).orderBy('id').execute();
}

/** Every profile of every app, in app and id order: for exports and the node's in-memory copy. */
export function selectAllProfiles(db: Kysely<Database>): Promise<QueryProfileTable[]> {
  return db.selectFrom('query_profile').selectAll().orderBy('app').orderBy('id').execute();
}

export function selectProfile(
  db: Kysely<Database>,
  app: string,
  id: string,
): Promise<QueryProfileTable | undefined> {
  return db
    .selectFrom('query_profile')
    .selectAll()
    .where('app', '=', app)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Inserts a profile unless its id is taken in the app; true when it was inserted. */
export async function insertProfile(db: Kysely<Database>, row: QueryProfileTable): Promise<boolean> {
  const result = await db
    .insertInto('query_profile')
    .values(row)
    .onConflict((oc) => oc.columns(['app', 'id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Inserts a profile or replaces the stored one, keeping its creation time. */
export async function upsertProfile(db: Kysely<Database>, row: QueryProfileTable): Promise<void> {
  const { app: _app, id: _id, created_at: _createdAt, ...changes } = row;
  await db
    .insertInto('query_profile')
    .values(row)
    .onConflict((oc) => oc.columns(['app', 'id']).doUpdateSet(changes))
    .execute();
}

/** Deletes a profile (its keys go with it); true when it existed. */
export async function deleteProfile(db: Kysely<Database>, app: string, id: string): Promise<boolean> {
  await db.deleteFrom('query_key').where('app', '=', app).where('profile_id', '=', id).execute();
  const result = await db
    .deleteFrom('query_profile')
    .where('app', '=', app)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function insertKey(db: Kysely<Database>, row: QueryKeyTable): Promise<void> {
  await db.insertInto('query_key').values(row).execute();
}

export function selectKeys(db: Kysely<Database>, app: string, profileId: string): Promise<QueryKeyTable[]> {
  return db
    .selectFrom('query_key')
    .selectAll()
    .where('app', '=', app)
    .where('profile_id', '=', profileId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function selectKey(db: Kysely<Database>, id: string): Promise<QueryKeyTable | undefined> {
  return db.selectFrom('query_key').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function deleteKey(
  db: Kysely<Database>,
  app: string,
  profileId: string,
  id: string,
): Promise<boolean> {
  const result = await db
    .deleteFrom('query_key')
    .where('app', '=', app)
    .where('profile_id', '=', profileId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Every key's hash and owner, for the node's in-memory copy. */
export function selectAllKeys(
  db: Kysely<Database>,
): Promise<Pick<QueryKeyTable, 'id' | 'app' | 'profile_id' | 'secret_hash'>[]> {
  return db.selectFrom('query_key').select(['id', 'app', 'profile_id', 'secret_hash']).execute();
}
