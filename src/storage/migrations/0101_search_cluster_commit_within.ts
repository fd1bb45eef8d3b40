import type { Kysely } from 'kysely';

/**
 * Fusion's documented `bufferCommitWithin` of a search cluster, kept so that a record exported
 * from Fusion PUTs back and reads the same. Definitions stored before it get Fusion's default.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('search_cluster')
    .addColumn('buffer_commit_within', 'integer', (c) => c.notNull().defaultTo(10_000))
    .execute();
}
