import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Who holds a named job lease, and until when (ISO 8601). */
export interface JobLeaseTable {
  name: string;
  holder: string;
  expires_at: string;
}

/**
 * Takes the named lease for `holder` until `until`, when it is free, expired, or already
 * this holder's. One conditional upsert, so on any engine exactly one of several nodes
 * racing for it wins; no lock is held while the job runs.
 */
export async function tryAcquireLease(
  db: Kysely<Database>,
  name: string,
  holder: string,
  now: Date,
  until: Date,
): Promise<boolean> {
  const result = await db
    .insertInto('job_lease')
    .values({ name, holder, expires_at: until.toISOString() })
    .onConflict((oc) =>
      oc
        .column('name')
        .doUpdateSet({ holder, expires_at: until.toISOString() })
        .where((eb) =>
          eb.or([eb('job_lease.expires_at', '<=', now.toISOString()), eb('job_lease.holder', '=', holder)]),
        ),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Gives the lease up early (after a failed run, so another node may retry at once). */
export async function releaseLease(db: Kysely<Database>, name: string, holder: string): Promise<void> {
  await db.deleteFrom('job_lease').where('name', '=', name).where('holder', '=', holder).execute();
}
