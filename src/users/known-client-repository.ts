// The addresses users signed in from (`user_known_client`).
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

/** Whether the user signed in from the client at or after `since`. */
export async function isKnownSince(
  db: Kysely<Database>,
  username: string,
  client: string,
  since: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('user_known_client')
    .select('signed_in_at')
    .where('username', '=', username)
    .where('client', '=', client)
    .where('signed_in_at', '>=', since)
    .executeTakeFirst();
  return row !== undefined;
}

/** Records that the user signed in from the client at `at`, and drops their marks from before `staleBefore`. */
export async function markKnown(
  db: Kysely<Database>,
  username: string,
  client: string,
  at: string,
  staleBefore: string,
): Promise<void> {
  await db
    .insertInto('user_known_client')
    .values({ username, client, signed_in_at: at })
    .onConflict((oc) => oc.columns(['username', 'client']).doUpdateSet({ signed_in_at: at }))
    .execute();
  await db
    .deleteFrom('user_known_client')
    .where('username', '=', username)
    .where('signed_in_at', '<', staleBefore)
    .execute();
}

/** Forgets every address of the user (a new password, or the user deleted). */
export async function deleteKnownClientsOf(db: Kysely<Database>, username: string): Promise<void> {
  await db.deleteFrom('user_known_client').where('username', '=', username).execute();
}
