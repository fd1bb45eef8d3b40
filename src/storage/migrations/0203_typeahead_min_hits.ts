import type { Kysely } from 'kysely';

/**
 * A typeahead instance's `minHits`: searches logged with fewer hits do not teach it. Instances
 * stored before it get 1, so the query endpoint's searches that found nothing stop counting.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('typeahead_instance')
    .addColumn('min_hits', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
}
