import { DEFAULT_MIGRATION_TABLE, type Kysely, Migrator, sql } from 'kysely';
import type { Store } from './database.js';
import { migrationsFor } from './migrations/index.js';
import type { Database } from './schema.js';

/**
 * Applies the pending migrations. Kysely runs them in one transaction and holds a
 * lock while it does, so nodes starting together on one PostgreSQL do not race.
 */
export async function migrateToLatest(store: Store): Promise<string[]> {
  if (store.engine === 'sqlite') return migrateOn(store, store.db);
  // The statement timeout bounds requests, not migrations: one may rewrite a large table,
  // and a node starting beside another waits for its lock. Lifted on one connection only.
  return store.db.connection().execute(async (connection) => {
    await sql`set statement_timeout = 0`.execute(connection);
    try {
      return await migrateOn(store, connection);
    } finally {
      await sql`reset statement_timeout`.execute(connection);
    }
  });
}

async function migrateOn(store: Store, db: Kysely<Database>): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await (await newMigrator(store, db)).migrateToLatest();
    if (!error) return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    if (attempt >= 5 || !isCatalogRace(error)) throw error;
    await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
  }
}

/**
 * Kysely's migrator reads the catalog of every schema to find its tables; a schema
 * dropped by someone else at that moment fails that one read. Migrations run in a
 * transaction, so trying again is safe.
 */
function isCatalogRace(error: unknown): boolean {
  const code = (error as { code?: string } | undefined)?.code;
  return code === '3F000' || code === '42P01';
}

/**
 * True when every known migration has been applied (the readiness check). It reads the
 * migration table of the current schema by name: Kysely's own listing reads the catalog of
 * every schema first, which is slow beside many schemas and fails when another drops one
 * at that moment, so `/ready` would answer 503 for a database that is fine.
 */
export async function isMigrated(store: Store): Promise<boolean> {
  const { rows } = await sql<{
    name: string;
  }>`select name from ${sql.table(DEFAULT_MIGRATION_TABLE)}`.execute(store.db);
  const applied = new Set(rows.map((row) => row.name));
  return Object.keys(migrationsFor(store.engine)).every((name) => applied.has(name));
}

/**
 * Each area numbers its own migrations (links 0002…, clusters 01xx, typeahead 02xx, rules
 * 03xx), so an area's new migration may sort before one already applied: order within an
 * area is what matters, and areas do not touch each other's tables.
 */
async function newMigrator(store: Store, db = store.db): Promise<Migrator> {
  // Kysely looks for its own tables in every schema unless told which one; several
  // databases in schemas of one PostgreSQL (tests, tenants) would see each other's.
  const schema =
    store.engine === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined;
  return new Migrator({
    db,
    ...(schema ? { migrationTableSchema: schema } : {}),
    provider: { getMigrations: async () => migrationsFor(store.engine) },
    allowUnorderedMigrations: true,
  });
}
