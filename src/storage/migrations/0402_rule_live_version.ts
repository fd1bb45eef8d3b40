import type { Kysely } from 'kysely';

/**
 * The version of each studio's live rules and rewrites, which every node polls to rebuild
 * its compiled evaluation index after a change made through another node. Studios that
 * have rules start at 1, so a node builds their index when it starts.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('rule_live_version')
    .addColumn('studio_id', 'text', (c) => c.primaryKey().references('studio.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .execute();
  const tables = db as Kysely<{
    rule: { studio_id: string };
    rule_live_version: { studio_id: string; version: number };
  }>;
  await tables
    .insertInto('rule_live_version')
    .columns(['studio_id', 'version'])
    .expression((eb) =>
      eb
        .selectFrom('rule')
        .select(['studio_id', eb.lit(1).as('version')])
        .distinct(),
    )
    .execute();
}
