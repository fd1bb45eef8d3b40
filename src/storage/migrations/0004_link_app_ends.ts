import { type Kysely, sql } from 'kysely';

/**
 * The apps named at either end of a link, each end indexed on its own (`GET /api/apps`).
 * Partial indexes hold only the `app:` names, so walking them from one app to the next
 * visits nothing else, whatever the database's collation, and they cost nothing to links
 * between other objects.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const end of ['subject', 'object']) {
    await sql`create index ${sql.id(`link_app_${end}s`)} on link (${sql.id(end)}) where ${sql.id(end)} like 'app:%'`.execute(
      db,
    );
  }
}
