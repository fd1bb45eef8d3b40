import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { isRetryable, isSqliteBusy } from './constraint-errors.js';
import type { Database } from './schema.js';

/** How often a transaction the engine aborted for another's sake is run again before giving up. */
export const TRANSACTION_ATTEMPTS = 5;

/**
 * Runs `work` in a new transaction, or in the caller's when `db` already is one (Kysely cannot
 * nest them), so one service can call another's writes inside its own transaction.
 *
 * A new transaction that fails with a serialization failure, a deadlock or a busy SQLite
 * database is run again from the start (a few times, after a short random pause so that the
 * contenders do not collide again): nothing of it was committed, so `work` must only have
 * effects inside the transaction. A busy SQLite database is not tried again once the attempts
 * have taken its busy_timeout. A joined transaction is never retried here, only its owner is.
 */
export async function inTransaction<T>(
  db: Kysely<Database>,
  work: (trx: Kysely<Database>) => Promise<T>,
): Promise<T> {
  if (db.isTransaction) return work(db);
  const started = performance.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      if (attempt >= TRANSACTION_ATTEMPTS || !isRetryable(error)) throw error;
      // The SQLite driver waits out busy_timeout on the event loop's thread, the whole process
      // with it: a busy database that already had that long is answered, not waited for again.
      if (isSqliteBusy(error) && performance.now() - started >= (busyWaits.get(db) ?? Infinity)) throw error;
      await sleep(Math.random() * 10 * 2 ** attempt);
    }
  }
}

const busyWaits = new WeakMap<Kysely<Database>, number>();

/** Records how long a SQLite store's statements wait for another connection's lock (busy_timeout). */
export function recordBusyWait(db: Kysely<Database>, ms: number): void {
  busyWaits.set(db, ms);
}
