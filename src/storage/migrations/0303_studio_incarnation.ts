import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';

/**
 * Each studio gets a random incarnation, its tokens carry it, and a studio created again
 * under a deleted one's id gets a new one: so no token of the old studio can act in the new.
 * Studios from before this migration get theirs here.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('studio').addColumn('incarnation', 'text').execute();
  const studios = db as Kysely<{ studio: { id: string; incarnation: string | null } }>;
  const rows = await studios.selectFrom('studio').select('id').execute();
  for (const { id } of rows) {
    await studios.updateTable('studio').set({ incarnation: randomUUID() }).where('id', '=', id).execute();
  }
}
