// SQL of evaluation's own table: the live version of each studio.
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

export async function selectLiveVersions(
  db: Kysely<Database>,
): Promise<Array<{ studioId: string; version: number }>> {
  const rows = await db.selectFrom('rule_live_version').select(['studio_id', 'version']).execute();
  return rows.map((row) => ({ studioId: row.studio_id, version: Number(row.version) }));
}

/** Moves the studio's live version on (from 1 when it had none), answering the new version. */
export async function bumpLiveVersion(db: Kysely<Database>, studioId: string): Promise<number> {
  const row = await db
    .insertInto('rule_live_version')
    .values({ studio_id: studioId, version: 1 })
    .onConflict((oc) =>
      oc.column('studio_id').doUpdateSet((eb) => ({ version: eb('rule_live_version.version', '+', 1) })),
    )
    .returning('version')
    .executeTakeFirstOrThrow();
  return Number(row.version);
}
