import { Migrator } from 'kysely';
import type { Store } from './database.js';
import { migrationsFor } from './migrations/index.js';

/**
 * Applies the pending migrations. Kysely runs them in one transaction and holds a
 * lock while it does, so nodes starting together on one PostgreSQL do not race.
 */
export async function migrateToLatest(store: Store): Promise<string[]> {
  const migrator = new Migrator({
    db: store.db,
    provider: { getMigrations: async () => migrationsFor(store.engine) },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** True when every known migration has been applied (the readiness check). */
export async function isMigrated(store: Store): Promise<boolean> {
  const migrator = new Migrator({
    db: store.db,
    provider: { getMigrations: async () => migrationsFor(store.engine) },
  });
  const migrations = await migrator.getMigrations();
  return migrations.every((m) => m.executedAt !== undefined);
}
