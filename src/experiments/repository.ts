import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { ExperimentTable } from './tables.js';

export function selectExperiments(db: Kysely<Database>, app: string): Promise<ExperimentTable[]> {
  return db.selectFrom('experiment').selectAll().where('app', '=', app).orderBy('id').execute();
}

/** Every experiment of every app: for the node's in-memory copy of the profiles. */
export function selectAllExperiments(db: Kysely<Database>): Promise<ExperimentTable[]> {
  return db.selectFrom('experiment').selectAll().orderBy('app').orderBy('id').execute();
}

export function selectExperiment(
  db: Kysely<Database>,
  app: string,
  id: string,
): Promise<ExperimentTable | undefined> {
  return db
    .selectFrom('experiment')
    .selectAll()
    .where('app', '=', app)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Inserts an experiment unless its id is taken in the app; true when it was inserted. */
export async function insertExperiment(db: Kysely<Database>, row: ExperimentTable): Promise<boolean> {
  const result = await db
    .insertInto('experiment')
    .values(row)
    .onConflict((oc) => oc.columns(['app', 'id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Replaces a stored experiment's settings; true when it existed. */
export async function updateExperiment(db: Kysely<Database>, row: ExperimentTable): Promise<boolean> {
  const result = await db
    .updateTable('experiment')
    .set({ settings: row.settings, updated_at: row.updated_at })
    .where('app', '=', row.app)
    .where('id', '=', row.id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteExperiment(db: Kysely<Database>, app: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('experiment')
    .where('app', '=', app)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
