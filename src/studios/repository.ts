// SQL of studios and their API clients.
import type { Kysely, Selectable } from 'kysely';
import { locksRowByRow } from '../storage/dialect.js';
import { PreparedQueries } from '../storage/prepared-query.js';
import type { Database } from '../storage/schema.js';
import type { StudioClientTable, StudioSyncTargetSecretTable, StudioTable } from './tables.js';

export type StudioRow = Selectable<StudioTable>;
export type ClientRow = Selectable<StudioClientTable>;

export async function insertStudio(db: Kysely<Database>, row: StudioRow): Promise<boolean> {
  const result = await db
    .insertInto('studio')
    .values(row)
    .onConflict((c) => c.doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

export function selectStudios(db: Kysely<Database>): Promise<StudioRow[]> {
  return db.selectFrom('studio').selectAll().orderBy('id').execute();
}

export function selectStudio(db: Kysely<Database>, id: string): Promise<StudioRow | undefined> {
  return db.selectFrom('studio').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * A studio with its row locked until the transaction ends, where the engine locks rows:
 * `update` to delete it; `key-share` to keep it from being deleted while something that names
 * it is written (the lock a foreign key takes: renames still pass, deletes wait).
 */
export function selectStudioLocked(
  db: Kysely<Database>,
  id: string,
  lock: 'update' | 'key-share',
): Promise<StudioRow | undefined> {
  const query = db.selectFrom('studio').selectAll().where('id', '=', id);
  if (!locksRowByRow(db)) return query.executeTakeFirst();
  return (lock === 'update' ? query.forUpdate() : query.forKeyShare()).executeTakeFirst();
}

/** Sets the given columns; nothing to set is no statement at all (SQL has no empty SET). */
export async function updateStudio(
  db: Kysely<Database>,
  id: string,
  changes: Partial<Pick<StudioRow, 'name' | 'sync_targets'>>,
): Promise<void> {
  if (Object.keys(changes).length === 0) return;
  await db.updateTable('studio').set(changes).where('id', '=', id).execute();
}

/** Removes a studio with its clients, rules and operations (the foreign keys cascade). */
export async function deleteStudioRow(db: Kysely<Database>, id: string): Promise<boolean> {
  const result = await db.deleteFrom('studio').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export async function insertClient(db: Kysely<Database>, row: ClientRow): Promise<boolean> {
  const result = await db
    .insertInto('studio_client')
    .values(row)
    .onConflict((c) => c.doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

export function selectClients(db: Kysely<Database>, studioId: string): Promise<ClientRow[]> {
  return db
    .selectFrom('studio_client')
    .selectAll()
    .where('studio_id', '=', studioId)
    .orderBy('name')
    .execute();
}

export function selectClient(db: Kysely<Database>, clientId: string): Promise<ClientRow | undefined> {
  return db.selectFrom('studio_client').selectAll().where('client_id', '=', clientId).executeTakeFirst();
}

/** What a token is checked against: its client, with the incarnation of the client's studio. */
export type Credential = ClientRow & { studio_incarnation: string | null };

const credentials = new PreparedQueries<Credential>('client_credential');

/**
 * A client with its studio's incarnation: one lookup by primary key, on every Rules API
 * request, so the statement is built once (prepared-query.ts) rather than per request.
 */
export async function selectCredential(
  db: Kysely<Database>,
  clientId: string,
): Promise<Credential | undefined> {
  const rows = await credentials.execute(
    db,
    'by-id',
    (db, parameter) =>
      db
        .selectFrom('studio_client')
        .innerJoin('studio', 'studio.id', 'studio_client.studio_id')
        .selectAll('studio_client')
        .select('studio.incarnation as studio_incarnation')
        .where('studio_client.client_id', '=', parameter(0)),
    [clientId],
  );
  return rows[0];
}

export async function deleteClientRow(db: Kysely<Database>, studioId: string, clientId: string) {
  const result = await db
    .deleteFrom('studio_client')
    .where('studio_id', '=', studioId)
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export type SyncTargetSecretRow = Selectable<StudioSyncTargetSecretTable>;

/** The sealed signing secrets of a studio's sync targets. */
export function selectSyncTargetSecrets(
  db: Kysely<Database>,
  studioId: string,
): Promise<SyncTargetSecretRow[]> {
  return db.selectFrom('studio_sync_target_secret').selectAll().where('studio_id', '=', studioId).execute();
}

/** Stores (or replaces) the sealed secret of each row's target. */
export async function upsertSyncTargetSecrets(
  db: Kysely<Database>,
  rows: SyncTargetSecretRow[],
): Promise<void> {
  for (const row of rows) {
    await db
      .insertInto('studio_sync_target_secret')
      .values(row)
      .onConflict((c) =>
        c.columns(['studio_id', 'url']).doUpdateSet({ secret: row.secret, created_at: row.created_at }),
      )
      .execute();
  }
}

/** Drops the secrets of the studio's targets that are not among `kept`. */
export async function deleteSyncTargetSecretsExcept(
  db: Kysely<Database>,
  studioId: string,
  kept: string[],
): Promise<void> {
  let query = db.deleteFrom('studio_sync_target_secret').where('studio_id', '=', studioId);
  if (kept.length > 0) query = query.where('url', 'not in', kept);
  await query.execute();
}
