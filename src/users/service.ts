import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import { SYSTEM_ACTOR } from '../history/actor.js';
import { recordChange } from '../history/service.js';
import { ConflictError, NotFoundError, ValidationError } from '../http/errors.js';
import { hashSecret } from '../security/password-hash.js';
import type { Database } from '../storage/schema.js';
import { inTransaction } from '../storage/transaction.js';
import { deleteKnownClientsOf } from './known-client-repository.js';
import {
  deleteEndedSessions,
  deleteSession,
  deleteSessionsOf,
  deleteUserRow,
  insertSession,
  insertUser,
  selectSession,
  selectUser,
  selectUsers,
  touchSession,
  type UserRow,
  updateUserRow,
} from './repository.js';
import type { Principal, Role } from './roles.js';

/** The first user; `searchdeck admin set-password` sets its password, so it stays an admin. */
export const FIRST_USER = 'admin';

export interface User extends Principal {
  studios: string[];
  typeaheadInstances: string[];
  createdAt: string;
  updatedAt: string;
}

export interface NewUser {
  username: string;
  password: string;
  role: Role;
  studios?: string[];
  typeaheadInstances?: string[];
}

export interface UserChanges {
  password?: string;
  role?: Role;
  studios?: string[];
  typeaheadInstances?: string[];
}

export function userOf(row: UserRow): User {
  return {
    username: row.username,
    role: row.role as Role,
    studios: JSON.parse(row.studios) as string[],
    typeaheadInstances: JSON.parse(row.typeahead_instances) as string[],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Creates a user; the history records it (without the password) as `user:<name>`. */
export async function createUser(
  db: Kysely<Database>,
  input: NewUser,
  now: Date,
  actor = SYSTEM_ACTOR,
): Promise<User> {
  const at = now.toISOString();
  const row: UserRow = {
    username: input.username,
    password_hash: await hashSecret(input.password),
    role: input.role,
    studios: JSON.stringify(unique(input.studios ?? [])),
    typeahead_instances: JSON.stringify(unique(input.typeaheadInstances ?? [])),
    created_at: at,
    updated_at: at,
  };
  const user = userOf(row);
  await inTransaction(db, async (trx) => {
    if (!(await insertUser(trx, row))) {
      throw ConflictError.taken('username', `a user named ${input.username} exists already`);
    }
    await recordChange(trx, {
      actor,
      action: 'create',
      object: `user:${user.username}`,
      summary: `user ${user.username} created as ${user.role}`,
      after: user,
      at: now,
    });
  });
  return user;
}

export async function listUsers(db: Kysely<Database>): Promise<User[]> {
  return (await selectUsers(db)).map(userOf);
}

export async function getUser(db: Kysely<Database>, username: string): Promise<User> {
  const row = await selectUser(db, username);
  if (!row) throw userNotFound(username);
  return userOf(row);
}

/** Changes a user; a new password or role ends the user's sessions, and a new password forgets their addresses. */
export async function changeUser(
  db: Kysely<Database>,
  username: string,
  changes: UserChanges,
  now: Date,
  actor = SYSTEM_ACTOR,
): Promise<User> {
  if (username === FIRST_USER && changes.role !== undefined && changes.role !== 'admin') {
    throw new ValidationError([{ field: 'role', message: `the user ${FIRST_USER} stays an admin` }]);
  }
  const hash = changes.password === undefined ? undefined : await hashSecret(changes.password);
  return inTransaction(db, async (trx) => {
    const before = await getUser(trx, username);
    const updated = await updateUserRow(trx, username, {
      ...(hash === undefined ? {} : { password_hash: hash }),
      ...(changes.role === undefined ? {} : { role: changes.role }),
      ...(changes.studios === undefined ? {} : { studios: JSON.stringify(unique(changes.studios)) }),
      ...(changes.typeaheadInstances === undefined
        ? {}
        : { typeahead_instances: JSON.stringify(unique(changes.typeaheadInstances)) }),
      updated_at: now.toISOString(),
    });
    if (!updated) throw userNotFound(username);
    if (hash !== undefined || changes.role !== undefined) await deleteSessionsOf(trx, username);
    // The addresses it signed in from are known by the old password; the new one starts afresh.
    if (hash !== undefined) await deleteKnownClientsOf(trx, username);
    const after = await getUser(trx, username);
    await recordChange(trx, {
      actor,
      action: 'update',
      object: `user:${username}`,
      summary: `user ${username} changed${hash === undefined ? '' : ' (a new password)'}`,
      before,
      after,
      at: now,
    });
    return after;
  });
}

/** Deletes a user, ends their sessions and forgets their addresses. */
export async function removeUser(
  db: Kysely<Database>,
  username: string,
  actor = SYSTEM_ACTOR,
): Promise<void> {
  if (username === FIRST_USER) {
    throw new ConflictError(`the user ${FIRST_USER} cannot be deleted (its password is the admin password)`);
  }
  await inTransaction(db, async (trx) => {
    const before = await getUser(trx, username);
    await deleteUserRow(trx, username);
    await deleteSessionsOf(trx, username);
    await deleteKnownClientsOf(trx, username);
    await recordChange(trx, {
      actor,
      action: 'delete',
      object: `user:${username}`,
      summary: `user ${username} deleted`,
      before,
    });
  });
}

function userNotFound(username: string): NotFoundError {
  return new NotFoundError(`no user named ${username}`);
}

function unique(ids: string[]): string[] {
  return [...new Set(ids)];
}

// Sessions ---------------------------------------------------------------------------------

/**
 * How long a console session may last: `idleMs` without use (SEARCHDECK_SESSION_IDLE_MINUTES),
 * and `maxMs` after signing in however much it is used (SEARCHDECK_SESSION_MAX_HOURS).
 */
export interface SessionLimits {
  idleMs: number;
  maxMs: number;
}

/**
 * How far behind a session's stored last use may fall before a request writes it: a tenth of
 * the idle time, at most a minute. Requests in between write nothing, and a session ends at
 * most this much before the idle time after its true last use, so one used more often than
 * nine tenths of the idle time never ends idle (with 1 minute: written every 6 s).
 */
export function touchEvery(idleMs: number): number {
  return Math.min(60_000, Math.floor(idleMs / 10));
}

export interface StartedSession {
  /** The session id, for the cookie; stored only as its hash. */
  id: string;
  csrfToken: string;
}

export interface ActiveSession {
  user: User;
  csrfToken: string;
}

export function sessionIdHash(id: string): string {
  return createHash('sha256').update(id).digest('base64url');
}

/** Starts a session; sessions that have ended (of anyone, idle or too old) are dropped on the way. */
export async function startSession(
  db: Kysely<Database>,
  username: string,
  now: Date,
  limits: SessionLimits,
): Promise<StartedSession> {
  await dropEndedSessions(db, now, limits);
  const id = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(32).toString('base64url');
  const at = now.toISOString();
  await insertSession(db, {
    id_hash: sessionIdHash(id),
    username,
    csrf_token: csrfToken,
    created_at: at,
    last_used_at: at,
  });
  return { id, csrfToken };
}

/**
 * The session of this id when it exists, has not been idle for the idle time and is younger
 * than the maximum lifetime; moves its last use (see `touchEvery`).
 */
export async function activeSession(
  db: Kysely<Database>,
  id: string,
  now: Date,
  limits: SessionLimits,
): Promise<ActiveSession | undefined> {
  const idHash = sessionIdHash(id);
  const found = await selectSession(db, idHash);
  if (!found) return undefined;
  const idle = now.getTime() - Date.parse(found.session.last_used_at);
  const age = now.getTime() - Date.parse(found.session.created_at);
  if (idle >= limits.idleMs || age >= limits.maxMs) {
    await dropEndedSessions(db, now, limits);
    return undefined;
  }
  if (idle >= touchEvery(limits.idleMs)) await touchSession(db, idHash, now.toISOString());
  return { user: userOf(found.user), csrfToken: found.session.csrf_token };
}

function dropEndedSessions(db: Kysely<Database>, now: Date, limits: SessionLimits): Promise<void> {
  const before = (ms: number) => new Date(now.getTime() - ms).toISOString();
  return deleteEndedSessions(db, before(limits.idleMs), before(limits.maxMs));
}

export async function endSession(db: Kysely<Database>, id: string): Promise<void> {
  await deleteSession(db, sessionIdHash(id));
}

/** Whether `given` is the session's CSRF token (constant time). */
export function csrfTokenMatches(session: ActiveSession, given: string | undefined): boolean {
  if (given === undefined) return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(session.csrfToken).digest();
  return timingSafeEqual(a, b);
}
