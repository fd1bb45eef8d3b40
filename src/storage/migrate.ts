import { type Kysely, Migrator, sql } from 'kysely';
import type { Store } from './database.js';
import { migrationsFor } from './migrations/index.js';
import type { Database } from './schema.js';

/**
 * Applies the pending migrations. Kysely runs them in one transaction and holds a
 * lock while it does, so nodes starting together on one PostgreSQL do not race.
 */
export async function migrateToLatest(store: Store): Promise<string[]> {
  const migrator = await newMigrator(store);
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** True when every known migration has been applied (the readiness check). */
export async function isMigrated(store: Store): Promise<boolean> {
  const migrations = await (await newMigrator(store)).getMigrations();
  return migrations.every((m) => m.executedAt !== undefined);
}

/**
 * Each area numbers its own migrations (links 0002…, clusters 01xx, typeahead 02xx, rules
 * 03xx), so an area's new migration may sort before one already applied: order within an
 * area is what matters, and areas do not touch each other's tables.
 */
async function newMigrator(store: Store): Promise<Migrator> {
  return new Migrator({
    db: store.db,
    provider: { getMigrations: async () => migrationsFor(store.engine) },
    allowUnorderedMigrations: true,
    // Unless told the schema, Kysely finds its migration tables in *any* schema: another one's
    // (a concurrent test's, another application's) makes it skip creating ours, and then fail.
    ...(store.engine === 'postgres' ? { migrationTableSchema: await currentSchema(store.db) } : {}),
  });
}

async function currentSchema(db: Kysely<Database>): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  const schema = rows[0]?.schema;
  if (!schema) throw new Error('PostgreSQL has no current schema: check search_path');
  return schema;
}
