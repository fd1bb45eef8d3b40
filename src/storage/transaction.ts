import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/**
 * Runs `work` in a new transaction, or in the caller's when `db` already is one (Kysely cannot
 * nest them), so one service can call another's writes inside its own transaction.
 */
export function inTransaction<T>(
  db: Kysely<Database>,
  work: (trx: Kysely<Database>) => Promise<T>,
): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}
