import { Migrator } from 'kysely';
import type { Store } from './database.js';
import { migrationsFor } from './migrations/index.js';

/**
 * Applies the pending migrations. Kysely runs them in one transaction and holds a
 * lock while it does, so nodes starting together on one PostgreSQL do not race.
 */
export async function migrateToLatest(store: Store): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await newMigrator(store).migrateToLatest();
    if (!error) return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    if (attempt >= 5 || !isCatalogRace(error)) throw error;
    await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
  }
}

/**
 * Kysely's migrator looks its tables up by reading the catalog of every schema; a schema
 * dropped by someone else at that moment fails that one read. Migrations run in a
 * transaction, so trying again is safe.
 */
function isCatalogRace(error: unknown): boolean {
  const code = (error as { code?: string } | undefined)?.code;
  return code === '3F000' || code === '42P01';
}

/** True when every known migration has been applied (the readiness check). */
export async function isMigrated(store: Store): Promise<boolean> {
  const migrations = await newMigrator(store).getMigrations();
  return migrations.every((m) => m.executedAt !== undefined);
}

/**
 * Each area numbers its own migrations (links 0002…, clusters 01xx, typeahead 02xx, rules
 * 03xx), so an area's new migration may sort before one already applied: order within an
 * area is what matters, and areas do not touch each other's tables.
 */
function newMigrator(store: Store): Migrator {
  return new Migrator({
    db: store.db,
    provider: { getMigrations: async () => migrationsFor(store.engine) },
    allowUnorderedMigrations: true,
    // Named explicitly: Kysely otherwise looks for its tables in every schema of the
    // database and takes another schema's for ours.
    ...(store.schema ? { migrationTableSchema: store.schema } : {}),
  });
}
