import type { Kysely } from 'kysely';

/**
 * The failures of one account from any address (`admin-account`, keyed by user name) are
 * counted beside those of each address, and wait a growing delay: `retry_at` is when the next
 * check of the account may start. Null for the windows of addresses.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('attempt_window').addColumn('retry_at', 'text').execute();
}
