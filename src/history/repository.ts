// Every statement of the history area.
import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { HistoryEventTable } from './tables.js';

export type HistoryEventRow = HistoryEventTable;

/** Which events a listing reads; an absent member matches any. `from` inclusive, `to` exclusive. */
export interface EventSelection {
  object?: string | undefined;
  actor?: string | undefined;
  action?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

export async function insertEvent(db: Kysely<Database>, row: HistoryEventRow): Promise<void> {
  await db.insertInto('history_event').values(row).execute();
}

export async function selectEvent(db: Kysely<Database>, id: string): Promise<HistoryEventRow | undefined> {
  return db.selectFrom('history_event').selectAll().where('id', '=', id).executeTakeFirst();
}

function selected(db: Kysely<Database>, selection: EventSelection) {
  let query = db.selectFrom('history_event') as SelectQueryBuilder<Database, 'history_event', object>;
  if (selection.object !== undefined) query = query.where('object', '=', selection.object);
  if (selection.actor !== undefined) query = query.where('actor', '=', selection.actor);
  if (selection.action !== undefined) query = query.where('action', '=', selection.action);
  if (selection.from !== undefined) query = query.where('at', '>=', selection.from);
  if (selection.to !== undefined) query = query.where('at', '<', selection.to);
  return query;
}

/** One page of the selected events, newest first (ties by id, so pages never skip or repeat). */
export async function selectEvents(
  db: Kysely<Database>,
  selection: EventSelection,
  page: { limit: number; offset: number },
): Promise<HistoryEventRow[]> {
  return selected(db, selection)
    .selectAll()
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

/** The newest selected event that recorded its object itself (a `before` or an `after`). */
export async function selectLatestRecorded(
  db: Kysely<Database>,
  selection: EventSelection,
): Promise<HistoryEventRow | undefined> {
  return selected(db, selection)
    .selectAll()
    .where((eb) => eb.or([eb('before', 'is not', null), eb('after', 'is not', null)]))
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function countEvents(db: Kysely<Database>, selection: EventSelection): Promise<number> {
  const row = await selected(db, selection)
    .select((eb) => eb.fn.countAll<string | number>().as('count'))
    .executeTakeFirstOrThrow();
  // pg answers count(*) as a string.
  return Number(row.count);
}

/** Deletes up to `limit` events older than `before`; answers how many went. */
export async function deleteEventsBefore(
  db: Kysely<Database>,
  before: string,
  limit: number,
): Promise<number> {
  const result = await db
    .deleteFrom('history_event')
    .where('id', 'in', (eb) =>
      eb.selectFrom('history_event').select('id').where('at', '<', before).limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
