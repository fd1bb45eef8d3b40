import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

// The admin password's hash is one row of the settings table.
const SETTING = 'admin_password_hash';

/** Stores the admin password hash, replacing any stored one. */
export async function storeAdminHash(db: Kysely<Database>, value: string): Promise<void> {
  await db
    .insertInto('setting')
    .values({ name: SETTING, value })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value }))
    .execute();
}

/** Stores the admin password hash unless one is stored already (the first of two writers wins). */
export async function storeFirstAdminHash(db: Kysely<Database>, value: string): Promise<void> {
  await db
    .insertInto('setting')
    .values({ name: SETTING, value })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

/** The stored admin password hash, if any. */
export async function storedAdminHash(db: Kysely<Database>): Promise<string | undefined> {
  const row = await db.selectFrom('setting').select('value').where('name', '=', SETTING).executeTakeFirst();
  return row?.value;
}
