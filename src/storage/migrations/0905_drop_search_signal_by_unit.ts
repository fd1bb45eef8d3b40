import type { Kysely } from 'kysely';
import type { Engine } from '../database.js';

/**
 * Drops 0904's index of searches by `unit_hash` alone. Every search an experiment counts
 * wrote an entry in it besides the experiments' own index, and that second entry was most
 * of what an experiment added to the cost of a search (docs/benchmarks.md). The privacy
 * delete now finds those searches along the experiments' index, one seek per experiment
 * and variant (src/analytics/privacy-repository.ts).
 */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema.dropIndex('search_signal_by_unit').ifExists().execute();
}
