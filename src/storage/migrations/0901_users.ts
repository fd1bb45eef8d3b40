import { type Kysely, sql } from 'kysely';

/**
 * Users with roles, and the browser sessions of the console. The admin password, one row of
 * the settings table until now, becomes the password of the first user, `admin`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('app_user')
    .addColumn('username', 'text', (c) => c.primaryKey())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    // JSON arrays of ids: the studios and typeahead instances a merchandiser may edit.
    .addColumn('studios', 'text', (c) => c.notNull())
    .addColumn('typeahead_instances', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('user_session')
    // The SHA-256 of the session id: the id itself is only ever in the browser's cookie.
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('user_session_by_user').on('user_session').column('username').execute();
  await db.schema.createIndex('user_session_by_use').on('user_session').column('last_used_at').execute();
  const now = new Date().toISOString();
  await sql`insert into app_user (username, password_hash, role, studios, typeahead_instances, created_at, updated_at)
    select 'admin', value, 'admin', '[]', '[]', ${now}, ${now} from setting where name = 'admin_password_hash'`.execute(
    db,
  );
  await sql`delete from setting where name = 'admin_password_hash'`.execute(db);
}
