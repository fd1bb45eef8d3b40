import type { Kysely } from 'kysely';

// The node running a bulk operation touches it as it goes, so an operation whose node
// died can be told from one still running.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('rule_bulk_operation').addColumn('heartbeat_at', 'text').execute();
}
