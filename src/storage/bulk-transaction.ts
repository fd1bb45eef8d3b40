// A transaction that writes many rows (the roll of a busy hour) without a long commit on the
// event loop. better-sqlite3 commits on the thread that asks, and a commit of megabytes
// waits there for the disk twice: to make the write-ahead log durable (synchronous = FULL),
// and, once the log passes its threshold (1,000 pages), to copy it into the database file
// (the automatic checkpoint, which the committing connection runs). A first roll of an hour
// of 41,667 searches wrote about 8 MB, and its commit held the loop for 50 ms.
import { open } from 'node:fs/promises';
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from './schema.js';

/** Runs `work` in one transaction, as `db.transaction().execute` does. */
export type BulkTransaction = <T>(work: (trx: Transaction<Database>) => Promise<T>) => Promise<T>;

/** On PostgreSQL a commit waits for the server, never on the event loop: a plain transaction. */
export function plainBulkTransaction(db: Kysely<Database>): BulkTransaction {
  return (work) => db.transaction().execute(work);
}

/**
 * On SQLite: before the commit, the log's pages written so far are flushed to disk off the
 * event loop (libuv's threads), so that the commit's own flush has only its last pages left;
 * the commit skips the automatic checkpoint, and `checkpoint` (the reader's thread) copies the
 * log after it. Durability is unchanged: the commit still flushes the log before it returns.
 * Another commit made before the setting is restored skips its checkpoint too, which only
 * leaves the log a little longer until the next one.
 */
export function sqliteBulkTransaction(
  db: Kysely<Database>,
  file: string,
  checkpoint: () => Promise<void>,
): BulkTransaction {
  return async (work) => {
    let pages: number | undefined;
    try {
      return await db.transaction().execute(async (trx) => {
        const result = await work(trx);
        const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(trx);
        pages = rows[0]?.wal_autocheckpoint;
        await sql`pragma wal_autocheckpoint = 0`.execute(trx);
        await flush(`${file}-wal`);
        return result;
      });
    } finally {
      if (pages !== undefined) {
        await sql`pragma wal_autocheckpoint = ${sql.lit(pages)}`.execute(db);
        await checkpoint();
      }
    }
  };
}

/**
 * Flushes a file's written pages to disk on libuv's threads. Only a head start for the commit,
 * which flushes the log itself: a failure here leaves it all of the work, and is not one.
 */
async function flush(path: string): Promise<void> {
  try {
    const handle = await open(path, 'r');
    try {
      await handle.datasync();
    } finally {
      await handle.close();
    }
  } catch {}
}
