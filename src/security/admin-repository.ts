import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { inTransaction } from '../storage/transaction.js';
import { deleteKnownClientsOf } from '../users/known-client-repository.js';
import { deleteSessionsOf, selectUser, upsertPassword } from '../users/repository.js';

// The admin password is the password of the first user, `admin` (the users table).
const ADMIN = 'admin';

function adminRow(value: string) {
  const now = new Date().toISOString();
  return {
    username: ADMIN,
    password_hash: value,
    role: 'admin',
    studios: '[]',
    typeahead_instances: '[]',
    created_at: now,
    updated_at: now,
  };
}

/** Stores the admin password hash, replacing any stored one; the admin's sessions end and addresses are forgotten. */
export async function storeAdminHash(db: Kysely<Database>, value: string): Promise<void> {
  await inTransaction(db, async (trx) => {
    await upsertPassword(trx, adminRow(value), true);
    await deleteSessionsOf(trx, ADMIN);
    await deleteKnownClientsOf(trx, ADMIN);
  });
}

/** Stores the admin password hash unless one is stored already (the first of two writers wins). */
export async function storeFirstAdminHash(db: Kysely<Database>, value: string): Promise<void> {
  await upsertPassword(db, adminRow(value), false);
}

/** The stored admin password hash, if any. */
export async function storedAdminHash(db: Kysely<Database>): Promise<string | undefined> {
  return (await selectUser(db, ADMIN))?.password_hash;
}
