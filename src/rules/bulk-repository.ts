// SQL of bulk operations: the operation's record (status, counts, errors, the
// heartbeat that tells a running operation from an abandoned one).
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

/** What a bulk operation's record holds, decoded. */
export interface BulkRecord<Status, Counts, Errors> {
  operationId: string;
  status: Status;
  counts: Counts;
  errors: Errors;
}

export async function insertBulkOperation(
  db: Kysely<Database>,
  studioId: string,
  record: BulkRecord<string, object, unknown[]>,
  at: string,
): Promise<void> {
  await db
    .insertInto('rule_bulk_operation')
    .values({
      id: record.operationId,
      studio_id: studioId,
      status: record.status,
      request: '{}',
      counts: JSON.stringify(record.counts),
      errors: JSON.stringify(record.errors),
      created_at: at,
      finished_at: null,
      heartbeat_at: at,
    })
    .execute();
}

/** The operation of a studio, or undefined (another studio's operation is not found either). */
export async function selectBulkOperation(
  db: Kysely<Database>,
  studioId: string,
  operationId: string,
): Promise<BulkRecord<string, unknown, unknown> | undefined> {
  const row = await db
    .selectFrom('rule_bulk_operation')
    .selectAll()
    .where('id', '=', operationId)
    .where('studio_id', '=', studioId)
    .executeTakeFirst();
  if (!row) return undefined;
  return { operationId, status: row.status, counts: JSON.parse(row.counts), errors: JSON.parse(row.errors) };
}

/** Operations still PENDING or RUNNING whose last sign of life is older than `cutoff`. */
export function selectSilentBulkOperations(
  db: Kysely<Database>,
  cutoff: string,
): Promise<Array<{ id: string; errors: string }>> {
  return db
    .selectFrom('rule_bulk_operation')
    .select(['id', 'errors'])
    .where('status', 'in', ['PENDING', 'RUNNING'])
    .where((eb) => eb.or([eb('heartbeat_at', '<', cutoff), eb('heartbeat_at', 'is', null)]))
    .execute();
}

/** Ends an operation as FAILED with these errors, unless it ended meanwhile. */
export async function failBulkOperation(
  db: Kysely<Database>,
  operationId: string,
  errors: unknown[],
  at: string,
): Promise<void> {
  await db
    .updateTable('rule_bulk_operation')
    .set({ status: 'FAILED', errors: JSON.stringify(errors), finished_at: at })
    .where('id', '=', operationId)
    .where('status', 'in', ['PENDING', 'RUNNING'])
    .execute();
}

/** Saves progress, which is also the heartbeat; `finished` also records the end. */
export async function saveBulkOperation(
  db: Kysely<Database>,
  record: BulkRecord<string, object, unknown[]>,
  at: string,
  finished: boolean,
): Promise<void> {
  await db
    .updateTable('rule_bulk_operation')
    .set({
      status: record.status,
      counts: JSON.stringify(record.counts),
      errors: JSON.stringify(record.errors),
      heartbeat_at: at,
      ...(finished ? { finished_at: at } : {}),
    })
    .where('id', '=', record.operationId)
    .execute();
}
