import {
  type DatabaseIntrospector,
  DEFAULT_MIGRATION_TABLE,
  type Kysely,
  Migrator,
  sql,
  type TableMetadata,
} from 'kysely';
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
  const { error, results } = await (await newMigrator(store, db)).migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
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
  if (store.engine === 'sqlite') {
    return new Migrator({ db, provider: providerFor(store), allowUnorderedMigrations: true });
  }
  // Kysely looks for its own tables in every schema unless told which one; several
  // databases in schemas of one PostgreSQL (tests, tenants) would see each other's.
  const schema = (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]
    ?.schema;
  if (!schema) throw new Error('PostgreSQL has no current schema: the search_path names none that exists');
  return new Migrator({
    db: withSchemaIntrospection(db, schema),
    migrationTableSchema: schema,
    provider: providerFor(store),
    allowUnorderedMigrations: true,
  });
}

function providerFor(store: Store) {
  return { getMigrations: async () => migrationsFor(store.engine) };
}

/**
 * Kysely's migrator asks the introspector whether its tables exist, and PostgreSQL's
 * introspector reads every column of every schema, calling catalog functions on each. A
 * schema dropped or a column changed elsewhere (another tenant, another test file) while
 * that read runs fails it with an error about an object that is not ours. The migrator
 * needs only the names of the tables in our schema, so it is given an introspector that
 * reads just those.
 */
function withSchemaIntrospection(db: Kysely<Database>, schema: string): Kysely<Database> {
  const tables = async (): Promise<TableMetadata[]> => {
    const { rows } = await sql<{ name: string; is_view: boolean }>`
      select c.relname as name, c.relkind = 'v' as is_view
      from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where n.nspname = ${schema} and c.relkind in ('r', 'v', 'p')`.execute(db);
    return rows.map((row) => ({ name: row.name, schema, isView: row.is_view, columns: [] }));
  };
  const introspection: DatabaseIntrospector = {
    getSchemas: async () => [{ name: schema }],
    getTables: tables,
    getMetadata: async () => ({ tables: await tables() }),
  };
  return new Proxy(db, {
    get(target, property) {
      if (property === 'introspection') return introspection;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
