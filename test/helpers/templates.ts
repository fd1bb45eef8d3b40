// Migrated databases for tests, made once per test process and handed out as copies: a copy
// of a migrated SQLite file, or a PostgreSQL schema from this process's pool, emptied back to
// what the migrations left when its test is done. Migrating costs hundreds of milliseconds
// per database, a copy a few.
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { storeAdminHash } from '../../src/security/admin-repository.js';
import { hashSecret } from '../../src/security/password-hash.js';
import { openStore, sqliteFile } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { testDatabaseUrl } from './postgres.js';

export const ADMIN_PASSWORD = 'test-admin-password';

// The admin's password hash in every template: scrypt at the least cost, since hashing is
// not what these tests are about (each hash records its cost, so it verifies as any other).
// Tests about hashing set a password through the service, which hashes at full cost.
const cheapAdminHash = hashSecret(ADMIN_PASSWORD, { N: 16, r: 1, p: 1 });

let sqliteTemplate: Promise<string> | undefined;

/** Puts a migrated SQLite database, with the admin's password, into the data dir. */
export async function copySqliteTemplate(dataDir: string): Promise<void> {
  sqliteTemplate ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'searchdeck-template-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const store = openStore({ dataDir: dir });
    try {
      await migrateToLatest(store);
      await storeAdminHash(store.db, await cheapAdminHash);
    } finally {
      // Closing the last connection checkpoints the WAL into the file and removes it.
      await store.close();
    }
    return sqliteFile(dir);
  })();
  copyFileSync(await sqliteTemplate, sqliteFile(dataDir));
}

// Schemas of this process that no test holds, emptied to what the migrations left.
const idleSchemas: string[] = [];
const allSchemas = new Set<string>();
let admin: pg.Pool | undefined;
// The tables of a migrated schema, and what they hold then (JSON rows by table).
let template: Promise<Template> | undefined;

interface Template {
  tables: string[];
  /** What the tables hold (JSON rows by table). */
  rows: Map<string, string>;
  /** The tables the planner has statistics of. */
  analyzed: string;
}

const adminPool = () =>
  (admin ??= new pg.Pool({ connectionString: testDatabaseUrl, max: 2, allowExitOnIdle: true }));

/**
 * A migrated PostgreSQL schema holding the admin's password, for one test. `release` empties
 * it back to that state for the next test of the process, or drops it when it cannot.
 */
export async function leaseSchema(): Promise<{ schema: string; release(): Promise<void> }> {
  const schema = idleSchemas.pop() ?? (await migratedSchema());
  return {
    schema,
    release: async () => {
      try {
        await reset(schema);
        idleSchemas.push(schema);
      } catch {
        await drop(schema).catch(() => {});
      }
    },
  };
}

let cleanUpRegistered = false;

async function migratedSchema(): Promise<string> {
  if (!cleanUpRegistered) {
    cleanUpRegistered = true;
    process.once('beforeExit', dropAll);
    await dropLeftovers();
  }
  const schema = `t_${process.pid}_${randomBytes(4).toString('hex')}`;
  await adminPool().query(`create schema ${schema}`);
  allSchemas.add(schema);
  const store = openStore({ dataDir: tmpdir(), databaseUrl: testDatabaseUrl, pgSchema: schema, poolSize: 1 });
  try {
    await migrateToLatest(store);
    await storeAdminHash(store.db, await cheapAdminHash);
  } finally {
    await store.close();
  }
  // The planner's statistics of a test's tables are the service's doing alone: a schema is
  // emptied by DELETE between tests, and autovacuum coming by at its own time would set a
  // table's row estimate from those dead rows under a test that checks what the service analyzed.
  for (const table of await tablesOf(schema))
    await adminPool().query(`alter table ${schema}.${table} set (autovacuum_enabled = false)`);
  template ??= contentOf(schema);
  await template;
  return schema;
}

/** The tables of a schema, without the migrations' own. */
async function tablesOf(schema: string): Promise<string[]> {
  const { rows } = await adminPool().query<{ name: string }>(
    `select tablename as name from pg_tables where schemaname = $1 and tablename not like 'kysely_migration%'
     order by tablename`,
    [schema],
  );
  return rows.map((row) => row.name);
}

/** The tables of a schema the planner has statistics of (ANALYZE, autovacuum or an index build). */
async function analyzedTablesOf(schema: string): Promise<string> {
  const { rows } = await adminPool().query<{ name: string }>(
    `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = $1 and c.relkind = 'r' and c.reltuples >= 0 order by c.relname`,
    [schema],
  );
  return rows.map((row) => row.name).join(',');
}

async function contentOf(schema: string): Promise<Template> {
  const tables = await tablesOf(schema);
  const held = new Map<string, string>();
  for (const table of tables) {
    const { rows } = await adminPool().query<{ rows: unknown[] | null }>(
      `select json_agg(t) as rows from ${schema}.${table} t`,
    );
    if (rows[0]?.rows) held.set(table, JSON.stringify(rows[0].rows));
  }
  return { tables, rows: held, analyzed: await analyzedTablesOf(schema) };
}

// Deleting from a few near-empty tables takes milliseconds where TRUNCATE takes hundreds. The
// replica role skips the triggers and foreign keys, so the tables' order does not matter.
async function reset(schema: string): Promise<void> {
  if (!template) throw new Error('no schema was migrated in this process');
  const { tables, rows: seeded, analyzed } = await template;
  // Rows can be deleted, statistics cannot: a schema the planner analyzed is not fresh any
  // more (a test of planner statistics would see the last test's), so it is dropped.
  if ((await analyzedTablesOf(schema)) !== analyzed) throw new Error(`${schema} has new statistics`);
  const client = await adminPool().connect();
  try {
    await client.query('begin');
    await client.query(`set local session_replication_role = replica`);
    await client.query(tables.map((table) => `delete from ${schema}.${table};`).join('\n'));
    for (const [table, rows] of seeded) {
      await client.query(
        `insert into ${schema}.${table} select * from json_populate_recordset(null::${schema}.${table}, $1)`,
        [rows],
      );
    }
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

async function drop(schema: string): Promise<void> {
  allSchemas.delete(schema);
  await adminPool().query(`drop schema if exists ${schema} cascade`);
}

// Schemas of test processes that ended without dropping theirs (killed, crashed).
async function dropLeftovers(): Promise<void> {
  const { rows } = await adminPool().query<{ name: string }>(
    `select nspname as name from pg_namespace where nspname ~ '^t_[0-9]+_[0-9a-f]+$'`,
  );
  for (const { name } of rows) {
    const pid = Number(name.split('_')[1]);
    if (pid !== process.pid && !isRunning(pid)) await drop(name).catch(() => {});
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// When the test process has nothing left to do, its schemas go; the pool then lets it exit.
async function dropAll(): Promise<void> {
  idleSchemas.length = 0;
  for (const schema of [...allSchemas]) await drop(schema).catch(() => {});
  const pool = admin;
  admin = undefined;
  await pool?.end();
}
