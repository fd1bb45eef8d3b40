import type { Kysely } from 'kysely';

/**
 * Failed-login and token-request counts per client address, in the database so that every
 * node behind a load balancer counts the same attempts (they were in each process's memory).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('attempt_window')
    .addColumn('counter', 'text', (c) => c.notNull())
    .addColumn('client', 'text', (c) => c.notNull())
    .addColumn('failures', 'integer', (c) => c.notNull())
    // Checks under way (a password hash being compared), not yet known to fail.
    .addColumn('pending', 'integer', (c) => c.notNull())
    .addColumn('window_ends_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('attempt_window_pkey', ['counter', 'client'])
    .execute();
  // Ended windows are swept by their end.
  await db.schema
    .createIndex('attempt_window_by_end')
    .on('attempt_window')
    .column('window_ends_at')
    .execute();
}
