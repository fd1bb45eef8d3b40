// Where SQL must differ between the engines, repositories ask here which one a handle
// speaks, so the question is answered in one place.
import { type Kysely, PostgresAdapter } from 'kysely';
import type { Database } from './schema.js';

/** Whether the handle speaks to PostgreSQL (else SQLite). */
export function onPostgres(db: Kysely<Database>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * Whether a transaction must take row locks itself: to fix the order it takes them in, and to
 * keep a row it read as it was until it commits. PostgreSQL locks a row when a statement first
 * writes it, so two transactions writing the same rows in different orders can deadlock, and
 * it reads committed data per statement (READ COMMITTED), so a row read may be deleted by
 * another transaction before this one commits. A SQLite write transaction holds the whole
 * database, and one whose reads another connection has since changed fails at its first write
 * (`SQLITE_BUSY_SNAPSHOT`) and is run again (`inTransaction`): there neither needs a lock statement.
 */
export function locksRowByRow(db: Kysely<Database>): boolean {
  return onPostgres(db);
}

/**
 * Whether filter sets that likely share few rules are best intersected first, their shared
 * ids read and the page sorted from those: PostgreSQL otherwise often plans the sort-index
 * walk as reading every rule of one set. SQLite walks as asked, and there the extra
 * statement with an id list (sent to the reader thread) cost more than the walk.
 */
export function intersectsSetsFirst(db: Kysely<Database>): boolean {
  return onPostgres(db);
}

/**
 * Whether the planner turns a correlated `exists` into a join over the whole subquery:
 * PostgreSQL does (then a rules page filtered by one large tag reads every rule of the tag
 * and sorts them, however few the page needs), unless the subquery has an `offset`, which
 * it never flattens. SQLite runs an `exists` as written, a lookup per row.
 */
export function flattensExists(db: Kysely<Database>): boolean {
  return onPostgres(db);
}
