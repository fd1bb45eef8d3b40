import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { AppUserTable, UserSessionTable } from './tables.js';

export type UserRow = Selectable<AppUserTable>;
export type SessionRow = Selectable<UserSessionTable>;

export async function insertUser(db: Kysely<Database>, row: UserRow): Promise<boolean> {
  const result = await db
    .insertInto('app_user')
    .values(row)
    .onConflict((oc) => oc.column('username').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function selectUser(db: Kysely<Database>, username: string): Promise<UserRow | undefined> {
  return db.selectFrom('app_user').selectAll().where('username', '=', username).executeTakeFirst();
}

export async function selectUsers(db: Kysely<Database>): Promise<UserRow[]> {
  return db.selectFrom('app_user').selectAll().orderBy('username').execute();
}

export async function updateUserRow(
  db: Kysely<Database>,
  username: string,
  changes: Partial<Omit<UserRow, 'username' | 'created_at'>>,
): Promise<boolean> {
  const result = await db
    .updateTable('app_user')
    .set(changes)
    .where('username', '=', username)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteUserRow(db: Kysely<Database>, username: string): Promise<boolean> {
  const result = await db.deleteFrom('app_user').where('username', '=', username).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Stores a password hash for `username`, creating the user with `role` when there is none. */
export async function upsertPassword(db: Kysely<Database>, row: UserRow, replace: boolean): Promise<void> {
  await db
    .insertInto('app_user')
    .values(row)
    .onConflict((oc) =>
      replace
        ? oc.column('username').doUpdateSet({ password_hash: row.password_hash, updated_at: row.updated_at })
        : oc.column('username').doNothing(),
    )
    .execute();
}

export async function insertSession(db: Kysely<Database>, row: SessionRow): Promise<void> {
  await db.insertInto('user_session').values(row).execute();
}

/** The session and its user, when both exist. */
export async function selectSession(
  db: Kysely<Database>,
  idHash: string,
): Promise<{ session: SessionRow; user: UserRow } | undefined> {
  const row = await db
    .selectFrom('user_session')
    .innerJoin('app_user', 'app_user.username', 'user_session.username')
    .select([
      'user_session.id_hash',
      'user_session.username',
      'user_session.csrf_token',
      'user_session.created_at as session_created_at',
      'user_session.last_used_at',
      'app_user.password_hash',
      'app_user.role',
      'app_user.studios',
      'app_user.typeahead_instances',
      'app_user.created_at',
      'app_user.updated_at',
    ])
    .where('user_session.id_hash', '=', idHash)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    session: {
      id_hash: row.id_hash,
      username: row.username,
      csrf_token: row.csrf_token,
      created_at: row.session_created_at,
      last_used_at: row.last_used_at,
    },
    user: {
      username: row.username,
      password_hash: row.password_hash,
      role: row.role,
      studios: row.studios,
      typeahead_instances: row.typeahead_instances,
      created_at: row.created_at,
      updated_at: row.updated_at,
    },
  };
}

export async function touchSession(db: Kysely<Database>, idHash: string, at: string): Promise<void> {
  await db.updateTable('user_session').set({ last_used_at: at }).where('id_hash', '=', idHash).execute();
}

export async function deleteSession(db: Kysely<Database>, idHash: string): Promise<void> {
  await db.deleteFrom('user_session').where('id_hash', '=', idHash).execute();
}

export async function deleteSessionsOf(db: Kysely<Database>, username: string): Promise<void> {
  await db.deleteFrom('user_session').where('username', '=', username).execute();
}

/** Drops the sessions last used at or before `usedBefore` or started at or before `startedBefore`. */
export async function deleteEndedSessions(
  db: Kysely<Database>,
  usedBefore: string,
  startedBefore: string,
): Promise<void> {
  await db
    .deleteFrom('user_session')
    .where((eb) => eb.or([eb('last_used_at', '<=', usedBefore), eb('created_at', '<=', startedBefore)]))
    .execute();
}
