// Studios (one shop's rule workspace) and the API clients that may act on them.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { ConflictError, NotFoundError } from '../http/errors.js';
import { removeLinksOf } from '../links/service.js';
import { studioHasRules } from '../rules/service.js';
import { hashSecret, verifySecret } from '../security/password-hash.js';
import { isMissingParent } from '../storage/constraint-errors.js';
import type { Database } from '../storage/schema.js';
import { inTransaction } from '../storage/transaction.js';
import {
  type ClientRow,
  deleteClientRow,
  deleteStudioRow,
  insertClient,
  insertStudio,
  type StudioRow,
  selectClients,
  selectCredential,
  selectStudio,
  selectStudioIdsWithSyncTargets,
  selectStudios,
  updateStudio,
} from './repository.js';

export const SCOPES = ['commercestudio.rules', 'commercestudio.rewrites'] as const;
export type Scope = (typeof SCOPES)[number];

export interface Studio {
  id: string;
  name: string;
  syncTargets: string[];
  createdAt: string;
}

export interface ApiClient {
  clientId: string;
  studioId: string;
  name: string;
  scopes: Scope[];
  createdAt: string;
}

function toStudio(row: StudioRow): Studio {
  return {
    id: row.id,
    name: row.name,
    syncTargets: JSON.parse(row.sync_targets) as string[],
    createdAt: row.created_at,
  };
}

/** A client as listed: never its secret or the secret's hash. */
function toClient(row: ClientRow): ApiClient {
  return {
    clientId: row.client_id,
    studioId: row.studio_id,
    name: row.name,
    scopes: JSON.parse(row.scopes) as Scope[],
    createdAt: row.created_at,
  };
}

/** Creates a studio; a new incarnation even when a deleted studio had its id, so none of its tokens work here. */
export async function createStudio(db: Kysely<Database>, body: { id: string; name: string }, now: Date) {
  const row: StudioRow = {
    id: body.id,
    name: body.name,
    sync_targets: '[]',
    created_at: now.toISOString(),
    incarnation: randomUUID(),
  };
  if (!(await insertStudio(db, row))) throw ConflictError.taken('id', `studio ${body.id} already exists`);
  return toStudio(row);
}

export async function listStudios(db: Kysely<Database>): Promise<Studio[]> {
  return (await selectStudios(db)).map(toStudio);
}

export async function getStudio(db: Kysely<Database>, id: string): Promise<Studio> {
  const row = await selectStudio(db, id);
  if (!row) throw new NotFoundError(`no studio ${id}`);
  return toStudio(row);
}

/** When a studio was created, or undefined when there is none: what an external token is checked against. */
export async function studioCreatedAt(db: Kysely<Database>, id: string): Promise<Date | undefined> {
  const row = await selectStudio(db, id);
  return row && new Date(row.created_at);
}

/** Whether a studio exists (the host-label check of the Rules API). */
export async function studioExists(db: Kysely<Database>, id: string): Promise<boolean> {
  return (await selectStudio(db, id)) !== undefined;
}

/** The webhook URLs a studio's rule changes go to; none when there is no such studio. */
export async function syncTargetsOf(db: Kysely<Database>, id: string): Promise<string[]> {
  const row = await selectStudio(db, id);
  return row ? toStudio(row).syncTargets : [];
}

/** The ids of the studios that have sync targets (whose undelivered changes a restart resumes). */
export function studiosWithSyncTargets(db: Kysely<Database>): Promise<string[]> {
  return selectStudioIdsWithSyncTargets(db);
}

export async function changeStudio(
  db: Kysely<Database>,
  id: string,
  body: { name?: string | undefined; syncTargets?: string[] | undefined },
): Promise<Studio> {
  // The body's fields are each optional: `{}` changes nothing and answers the studio as it is.
  await getStudio(db, id);
  await updateStudio(db, id, {
    ...(body.name === undefined ? {} : { name: body.name }),
    ...(body.syncTargets === undefined
      ? {}
      : { sync_targets: JSON.stringify([...new Set(body.syncTargets)]) }),
  });
  return getStudio(db, id);
}

/** Deletes a studio; one with rules only when forced, as its rules go with it. */
export async function deleteStudio(db: Kysely<Database>, id: string, force: boolean): Promise<void> {
  await inTransaction(db, async (trx) => {
    await getStudio(trx, id);
    if (!force && (await studioHasRules(trx, id))) {
      throw new ConflictError(`studio ${id} has rules; delete them first or pass force=true`);
    }
    // Concurrent deletes all read the studio; only the one whose DELETE removed the row
    // answers 204, the others find it gone. Its clients go with it, and so their tokens.
    if (!(await deleteStudioRow(trx, id))) throw new NotFoundError(`no studio ${id}`);
    // The studio's name as a link end goes with it.
    await removeLinksOf(trx, `studio:${id}`);
  });
}

/** Creates a client; the secret is answered here once and only its hash is kept. */
export async function createClient(
  db: Kysely<Database>,
  studioId: string,
  body: { name: string; scopes?: Scope[] | undefined },
  now: Date,
): Promise<ApiClient & { clientSecret: string }> {
  await getStudio(db, studioId);
  const clientSecret = randomBytes(32).toString('base64url');
  const row: ClientRow = {
    client_id: randomUUID(),
    studio_id: studioId,
    name: body.name,
    secret_hash: await hashSecret(clientSecret),
    scopes: JSON.stringify([...new Set(body.scopes ?? [...SCOPES])]),
    created_at: now.toISOString(),
  };
  let inserted: boolean;
  try {
    inserted = await insertClient(db, row);
  } catch (error) {
    // The studio was deleted since it was read.
    if (isMissingParent(error)) throw new NotFoundError(`no studio ${studioId}`);
    throw error;
  }
  if (!inserted)
    throw ConflictError.taken('name', `studio ${studioId} already has a client named ${body.name}`);
  return { ...toClient(row), clientSecret };
}

export async function listClients(db: Kysely<Database>, studioId: string): Promise<ApiClient[]> {
  await getStudio(db, studioId);
  return (await selectClients(db, studioId)).map(toClient);
}

/** Removes a client; its tokens stop working as they name a client that no longer exists. */
export async function deleteClient(db: Kysely<Database>, studioId: string, clientId: string): Promise<void> {
  if (!(await deleteClientRow(db, studioId, clientId))) {
    throw new NotFoundError(`studio ${studioId} has no client ${clientId}`);
  }
}

/** A client with the incarnation of the very studio it belongs to: what a token binds to. */
export interface ClientIdentity {
  client: ApiClient;
  /** Null only for studios created before incarnations existed. */
  studioIncarnation: string | null;
}

/** The client and its studio's incarnation, by client id: one lookup by primary key. */
export async function clientIdentity(
  db: Kysely<Database>,
  clientId: string,
): Promise<ClientIdentity | undefined> {
  const row = await selectCredential(db, clientId);
  return row && { client: toClient(row), studioIncarnation: row.studio_incarnation };
}

/** The client whose id and secret these are, or undefined for an unknown client or a wrong secret. */
export async function authenticateClient(
  db: Kysely<Database>,
  clientId: string,
  clientSecret: string,
): Promise<ClientIdentity | undefined> {
  const row = await selectCredential(db, clientId);
  if (!row || !(await verifySecret(clientSecret, row.secret_hash))) return undefined;
  return { client: toClient(row), studioIncarnation: row.studio_incarnation };
}
