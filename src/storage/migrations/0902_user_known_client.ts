import type { Kysely } from 'kysely';

/**
 * The addresses each user has signed in from: the account's delay after failed logins does
 * not hold them up (docs/decisions.md, "Failed logins per account").
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('user_known_client')
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('client', 'text', (c) => c.notNull())
    .addColumn('signed_in_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_known_client_pkey', ['username', 'client'])
    .execute();
}
