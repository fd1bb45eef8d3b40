// Studios (one shop's rule workspace) and the API clients that may act on them.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { SYSTEM_ACTOR } from '../history/actor.js';
import { recordChange } from '../history/service.js';
import { ConflictError, NotFoundError } from '../http/errors.js';
import { removeLinksOf } from '../links/service.js';
import { SCOPES, type Scope } from '../oauth/scopes.js';
import { hashSecret, verifySecret } from '../security/password-hash.js';
import type { SecretBox } from '../security/secret-box.js';
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
  selectStudioLocked,
  selectStudios,
  updateStudio,
} from './repository.js';
import { issueSecrets, type TargetSecret } from './sync-target-secrets.js';

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
export async function createStudio(
  db: Kysely<Database>,
  body: { id: string; name: string },
  now: Date,
  actor = SYSTEM_ACTOR,
) {
  const row: StudioRow = {
    id: body.id,
    name: body.name,
    sync_targets: '[]',
    created_at: now.toISOString(),
    incarnation: randomUUID(),
  };
  const inserted = await inTransaction(db, async (trx) => {
    if (!(await insertStudio(trx, row))) return false;
    await recordChange(trx, studioEvent(actor, 'create', body.id, { after: toStudio(row), at: now }));
    return true;
  });
  if (!inserted) throw ConflictError.taken('id', `studio ${body.id} already exists`);
  return toStudio(row);
}

function studioEvent(
  actor: string,
  action: string,
  id: string,
  values: { before?: unknown; after?: unknown; at?: Date },
  summary = `${action} studio ${id}`,
) {
  return { actor, action, object: `studio:${id}`, summary, ...values };
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

/**
 * Whether a studio exists, held so until the caller's transaction ends: a delete of the studio
 * then waits for that commit and finds what the transaction wrote naming it, or, when it came
 * first, this finds the studio gone. Call it inside the transaction that writes the studio's
 * name, before that transaction's writes: the delete locks the studio row before anything else,
 * so taking it first too keeps the two from waiting on each other.
 */
export async function holdStudio(db: Kysely<Database>, id: string): Promise<boolean> {
  return (await selectStudioLocked(db, id, 'key-share')) !== undefined;
}

/** The webhook URLs a studio's rule changes go to; none when there is no such studio. */
export async function syncTargetsOf(db: Kysely<Database>, id: string): Promise<string[]> {
  const row = await selectStudio(db, id);
  return row ? toStudio(row).syncTargets : [];
}

/** A studio as changed: with the secrets of the sync targets that got one, shown only here. */
export type ChangedStudio = Studio & { syncTargetSecrets?: TargetSecret[] };

/** Renames a studio or sets its sync targets; a target new to the studio gets its signing secret. */
export async function changeStudio(
  db: Kysely<Database>,
  box: SecretBox,
  id: string,
  body: { name?: string | undefined; syncTargets?: string[] | undefined },
  now: Date,
  actor: string,
): Promise<ChangedStudio> {
  // The body's fields are each optional: `{}` changes nothing and answers the studio as it is.
  const targets = body.syncTargets === undefined ? undefined : [...new Set(body.syncTargets)];
  const issued = await inTransaction(db, async (trx) => {
    const before = await getStudio(trx, id);
    await updateStudio(trx, id, {
      ...(body.name === undefined ? {} : { name: body.name }),
      ...(targets === undefined ? {} : { sync_targets: JSON.stringify(targets) }),
    });
    const after = await getStudio(trx, id);
    await recordChange(trx, studioEvent(actor, 'update', id, { before, after, at: now }));
    return targets && (await issueSecrets(trx, box, id, targets, now, false));
  });
  const studio = await getStudio(db, id);
  return issued ? { ...studio, syncTargetSecrets: issued } : studio;
}

/** New signing secrets for every sync target of a studio, shown only in this answer; the old ones stop at once. */
export function rotateSyncTargetSecrets(
  db: Kysely<Database>,
  box: SecretBox,
  id: string,
  now: Date,
  actor: string,
): Promise<TargetSecret[]> {
  return inTransaction(db, async (trx) => {
    const studio = await getStudio(trx, id);
    // The targets whose secret changed, never the secrets.
    const after = { syncTargets: studio.syncTargets };
    const summary = `new webhook secrets for the ${studio.syncTargets.length} sync targets of studio ${id}`;
    await recordChange(trx, studioEvent(actor, 'rotate-webhook-secrets', id, { after, at: now }, summary));
    return issueSecrets(trx, box, id, studio.syncTargets, now, true);
  });
}

/**
 * What another area keeps in a studio (its rules, its rewrites), which goes with the studio:
 * an unforced delete is refused while any exists. The areas hand theirs to the studios area
 * when the app is built, so studios need not know them.
 */
export interface StudioContent {
  /** What it is, as the refusal names it ("rules"). */
  readonly name: string;
  exists(db: Kysely<Database>, studioId: string): Promise<boolean>;
}

/**
 * What names a studio from outside it (a query profile, an experiment's variant): a delete is
 * refused while any does, forced or not, since `force` is about what goes with the studio, and
 * a user left naming a missing studio fails later (a promotion's 400) or quietly serves no
 * rules. The areas hand theirs to the studios area when the app is built, as with content.
 */
export interface StudioUsers {
  /** The names of what uses the studio, as the refusal names them ("query profile shop/main"). */
  usersOf(db: Kysely<Database>, studioId: string): Promise<string[]>;
}

/** What the studios area asks other areas about a studio before deleting it. */
export interface StudioDependants {
  contents: readonly StudioContent[];
  users: readonly StudioUsers[];
}

// Enough to act on in a message; `details.users` lists them all.
const USERS_NAMED = 5;

/** Throws a 409 naming what uses the studio, if anything does. */
async function assertUnused(db: Kysely<Database>, id: string, users: readonly StudioUsers[]): Promise<void> {
  const names: string[] = [];
  for (const user of users) names.push(...(await user.usersOf(db, id)));
  if (names.length === 0) return;
  const shown = names.slice(0, USERS_NAMED);
  const more = names.length - shown.length;
  const listed =
    more > 0
      ? `${shown.join(', ')} and ${more} more`
      : shown.length === 1
        ? shown[0]
        : `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`;
  throw new ConflictError(
    `studio ${id} is used by ${listed}; change ${names.length === 1 ? 'that' : 'those'} first`,
    { users: names },
  );
}

/**
 * Deletes a studio; refused while anything uses it, and one with content only when forced,
 * as its content goes with it.
 */
export async function deleteStudio(
  db: Kysely<Database>,
  id: string,
  force: boolean,
  dependants: StudioDependants,
  actor: string,
): Promise<void> {
  const { contents, users } = dependants;
  await inTransaction(db, async (trx) => {
    // Locked first: a save naming the studio (`holdStudio`) that came first has committed by
    // then, so its user is found below; one that comes later waits and finds the studio gone.
    const row = await selectStudioLocked(trx, id, 'update');
    if (!row) throw new NotFoundError(`no studio ${id}`);
    const before = toStudio(row);
    await assertUnused(trx, id, users);
    for (const content of force ? [] : contents) {
      if (await content.exists(trx, id)) {
        throw new ConflictError(`studio ${id} has ${content.name}; delete them first or pass force=true`);
      }
    }
    // Only the delete whose DELETE removed the row answers 204; another that read the studio
    // too finds it gone. Its clients go with it, and so their tokens.
    if (!(await deleteStudioRow(trx, id))) throw new NotFoundError(`no studio ${id}`);
    // The studio's name as a link end goes with it.
    await removeLinksOf(trx, `studio:${id}`);
    await recordChange(trx, studioEvent(actor, 'delete', id, { before }));
  });
}

/**
 * A change of a studio's clients as another area follows it: `inside` runs in the change's
 * transaction (its failure fails the change), `committed` after the commit.
 */
export interface ClientsChange {
  inside(trx: Kysely<Database>): Promise<void>;
  committed(): Promise<void>;
}

/** Creates a client; the secret is answered here once and only its hash is kept. */
export async function createClient(
  db: Kysely<Database>,
  studioId: string,
  body: { name: string; scopes?: Scope[] | undefined },
  now: Date,
  actor = SYSTEM_ACTOR,
  change?: ClientsChange,
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
    inserted = await inTransaction(db, async (trx) => {
      if (!(await insertClient(trx, row))) return false;
      await change?.inside(trx);
      const summary = `created API client ${body.name} of studio ${studioId}`;
      await recordChange(
        trx,
        studioEvent(actor, 'create-client', studioId, { after: toClient(row), at: now }, summary),
      );
      return true;
    });
  } catch (error) {
    // The studio was deleted since it was read.
    if (isMissingParent(error)) throw new NotFoundError(`no studio ${studioId}`);
    throw error;
  }
  if (!inserted)
    throw ConflictError.taken('name', `studio ${studioId} already has a client named ${body.name}`);
  return { ...toClient(row), clientSecret };
}

/**
 * The names of a studio's API clients by their ids (none for a studio that does not exist):
 * the holders of the tokens a node's copy of the studio accepts (evaluation).
 */
export async function clientNamesOf(db: Kysely<Database>, studioId: string): Promise<Map<string, string>> {
  return new Map((await selectClients(db, studioId)).map((row) => [row.client_id, row.name]));
}

export async function listClients(db: Kysely<Database>, studioId: string): Promise<ApiClient[]> {
  await getStudio(db, studioId);
  return (await selectClients(db, studioId)).map(toClient);
}

/** Removes a client; its tokens stop working as they name a client that no longer exists. */
export async function deleteClient(
  db: Kysely<Database>,
  studioId: string,
  clientId: string,
  actor: string,
  change?: ClientsChange,
): Promise<void> {
  await inTransaction(db, async (trx) => {
    if (!(await deleteClientRow(trx, studioId, clientId))) {
      throw new NotFoundError(`studio ${studioId} has no client ${clientId}`);
    }
    await change?.inside(trx);
    const summary = `deleted API client ${clientId} of studio ${studioId}`;
    await recordChange(trx, studioEvent(actor, 'delete-client', studioId, { before: { clientId } }, summary));
  });
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

/**
 * Creates a client with the id it had where it was exported from (Objects import); its secret
 * is new, answered here once, as the old one never leaves its instance. A taken id or name is a 409.
 */
export async function importClient(
  db: Kysely<Database>,
  studioId: string,
  client: { clientId: string; name: string; scopes: Scope[] },
  now: Date,
): Promise<ApiClient & { clientSecret: string }> {
  const clientSecret = randomBytes(32).toString('base64url');
  const row: ClientRow = {
    client_id: client.clientId,
    studio_id: studioId,
    name: client.name,
    secret_hash: await hashSecret(clientSecret),
    scopes: JSON.stringify([...new Set(client.scopes)]),
    created_at: now.toISOString(),
  };
  if (!(await insertClient(db, row))) {
    throw ConflictError.taken(
      'clientId',
      `client ${client.clientId} (${client.name}) exists already, in studio ${studioId} or another`,
    );
  }
  return { ...toClient(row), clientSecret };
}

/** Whether a client with this id exists, in any studio. */
export async function clientExists(db: Kysely<Database>, clientId: string): Promise<boolean> {
  return (await selectCredential(db, clientId)) !== undefined;
}
