// SQL of the rule-sync outbox: writing deliveries, claiming the due ones, recording attempts.
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { WebhookDeliveryTable } from './tables.js';

export type DeliveryRow = Selectable<WebhookDeliveryTable>;

// Rows per INSERT: far below either engine's limit on bound parameters (12 columns each).
const ROWS_PER_INSERT = 200;

export async function insertDeliveries(db: Kysely<Database>, rows: Insertable<WebhookDeliveryTable>[]) {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    await db
      .insertInto('webhook_delivery')
      .values(rows.slice(i, i + ROWS_PER_INSERT))
      .execute();
  }
}

/** Pending deliveries due at `now`, the longest waiting first. */
export function selectDue(
  db: Kysely<Database>,
  now: string,
  limit: number,
): Promise<Array<Pick<DeliveryRow, 'id' | 'next_attempt_at'>>> {
  return db
    .selectFrom('webhook_delivery')
    .select(['id', 'next_attempt_at'])
    .where('status', '=', 'PENDING')
    .where('next_attempt_at', '<=', now)
    .orderBy('next_attempt_at')
    .limit(limit)
    .execute();
}

/** When the next pending delivery is due (undefined: none is pending). */
export async function selectEarliestDue(db: Kysely<Database>): Promise<string | undefined> {
  const row = await db
    .selectFrom('webhook_delivery')
    .select((eb) => eb.fn.min('next_attempt_at').as('due'))
    .where('status', '=', 'PENDING')
    .executeTakeFirst();
  return row?.due ?? undefined;
}

export async function countPending(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('webhook_delivery')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('status', '=', 'PENDING')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * Claims a due delivery for `node` until `until`: one conditional update, which only lands
 * while the row is still as read (pending, due at `seenDue`). Of several nodes claiming it
 * at once exactly one wins, on either engine; a claim whose node died lapses at `until`.
 */
export async function claimDelivery(
  db: Kysely<Database>,
  id: string,
  seenDue: string,
  node: string,
  until: string,
): Promise<DeliveryRow | undefined> {
  const result = await db
    .updateTable('webhook_delivery')
    .set({ claimed_by: node, next_attempt_at: until })
    .where('id', '=', id)
    .where('status', '=', 'PENDING')
    .where('next_attempt_at', '=', seenDue)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return undefined;
  return db.selectFrom('webhook_delivery').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Records an attempt of a claimed delivery; ignored when another node has claimed it since. */
export async function recordAttempt(
  db: Kysely<Database>,
  id: string,
  node: string,
  changes: Updateable<WebhookDeliveryTable>,
): Promise<void> {
  await db
    .updateTable('webhook_delivery')
    .set(changes)
    .where('id', '=', id)
    .where('claimed_by', '=', node)
    .where('status', '=', 'PENDING')
    .execute();
}

/** A page of a studio's deliveries, newest first, optionally of one status. */
export function selectStudioDeliveries(
  db: Kysely<Database>,
  studioId: string,
  filter: { status?: string | undefined; limit: number; offset: number },
): Promise<DeliveryRow[]> {
  let query = db.selectFrom('webhook_delivery').selectAll().where('studio_id', '=', studioId);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  return query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(filter.limit)
    .offset(filter.offset)
    .execute();
}

/** Removes the deliveries that ended (delivered, skipped, failed) before `cutoff`. */
export async function deleteFinishedBefore(db: Kysely<Database>, cutoff: string): Promise<number> {
  const result = await db
    .deleteFrom('webhook_delivery')
    .where('status', '!=', 'PENDING')
    .where('finished_at', '<', cutoff)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
