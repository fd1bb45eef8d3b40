import type { Kysely } from 'kysely';
import type { Engine } from '../database.js';

/**
 * A shopper's searches by the keyed hash of their experiment parameter's value (`unit_hash`):
 * the privacy delete finds them by it as by `user_hash`. The experiments' index has the hash
 * last, after the experiment and variant, so it cannot serve a lookup by the hash alone.
 * Partial: most searches run no experiment and leave it null.
 */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema
    .createIndex('search_signal_by_unit')
    .on('search_signal')
    .column('unit_hash')
    .where('unit_hash', 'is not', null)
    .execute();
}
