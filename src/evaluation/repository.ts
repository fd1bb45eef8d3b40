// SQL of evaluation's own table: the live version of each studio, with the incarnation of
// the studio it counts.
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

/** A studio's live version, and which incarnation of the studio (created again under its id) it counts. */
export interface LiveVersion {
  studioId: string;
  version: number;
  incarnation: string | null;
}

export async function selectLiveVersions(db: Kysely<Database>): Promise<LiveVersion[]> {
  const rows = await db
    .selectFrom('rule_live_version')
    .innerJoin('studio', 'studio.id', 'rule_live_version.studio_id')
    .select(['rule_live_version.studio_id', 'rule_live_version.version', 'studio.incarnation'])
    .execute();
  return rows.map((row) => ({
    studioId: row.studio_id,
    version: Number(row.version),
    incarnation: row.incarnation,
  }));
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
