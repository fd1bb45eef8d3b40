import type { Kysely } from 'kysely';
import type { Engine } from '../database.js';

/**
 * The experiment and variant a counted search was assigned to, and the keyed hash of the
 * value that assigned it (the experiment's uniqueIdParameter): the experiment's shoppers are
 * the distinct hashes of its searches, read through the index below.
 */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema.alterTable('search_signal').addColumn('experiment', 'text').execute();
  await db.schema.alterTable('search_signal').addColumn('variant', 'text').execute();
  await db.schema.alterTable('search_signal').addColumn('unit_hash', 'text').execute();
  await db.schema
    .createIndex('search_signal_by_experiment')
    .on('search_signal')
    .columns(['app', 'experiment', 'variant', 'unit_hash'])
    .execute();
}
