// Where a scenario keeps its data: a fresh SQLite data directory or a fresh PostgreSQL
// database on the local server, chosen by `npm run bench -- --engine sqlite|postgres|both`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { root } from './lib.js';

export type Engine = 'sqlite' | 'postgres';
export const ENGINES: readonly Engine[] = ['sqlite', 'postgres'];

/** The server the PostgreSQL scenarios create their databases on (its `test` database first). */
export const benchPostgresUrl =
  process.env.SEARCHDECK_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** One scenario's store, migrated and empty; `env` starts the service on it. */
export interface BenchStore {
  engine: Engine;
  /** Environment for `startService` (and `main.js migrate`). */
  env: Record<string, string>;
  /** The SQLite database file (sqlite only), for seeding straight into it. */
  sqliteFile?: string;
  /** The PostgreSQL database URL (postgres only), for seeding straight into it. */
  postgresUrl?: string;
  /** Refreshes the planner's statistics after seeding (PostgreSQL `ANALYZE`, SQLite `ANALYZE`). */
  analyze(): Promise<void>;
  /** Drops the database or removes the directory. */
  remove(): Promise<void>;
}

/** Parses `--engine sqlite|postgres|both` out of the arguments; the rest name scenarios. */
export function parseEngineArgs(argv: readonly string[]): { engines: Engine[]; names: string[] } {
  const names: string[] = [];
  let choice = 'both';
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--engine') choice = argv[++i] ?? '';
    else if (arg.startsWith('--engine=')) choice = arg.slice('--engine='.length);
    else names.push(arg);
  }
  if (choice === 'both') return { engines: [...ENGINES], names };
  if (choice === 'sqlite' || choice === 'postgres') return { engines: [choice], names };
  throw new Error(`--engine takes sqlite, postgres or both, not "${choice}"`);
}

/** Creates and migrates an empty store named after the scenario. */
export async function createBenchStore(engine: Engine, name: string): Promise<BenchStore> {
  if (engine === 'sqlite') {
    const dataDir = mkdtempSync(join(tmpdir(), `searchdeck-bench-${name}-`));
    const env = { SEARCHDECK_DATA_DIR: dataDir };
    migrate(env);
    const sqliteFile = join(dataDir, 'searchdeck.db');
    return {
      engine,
      env,
      sqliteFile,
      analyze: async () => {
        const { default: SqliteDatabase } = await import('better-sqlite3');
        const db = new SqliteDatabase(sqliteFile);
        db.exec('analyze');
        db.close();
      },
      remove: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  // The process id keeps two runs at once on one server (two checkouts) from dropping each other's database.
  const database = `searchdeck_bench_${name.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${process.pid}`;
  await onServer(async (client) => {
    await client.query(`drop database if exists ${database} with (force)`);
    await client.query(`create database ${database}`);
  });
  const url = new URL(benchPostgresUrl);
  url.pathname = `/${database}`;
  const postgresUrl = url.toString();
  const dataDir = mkdtempSync(join(tmpdir(), `searchdeck-bench-${name}-`));
  const env = { SEARCHDECK_DATA_DIR: dataDir, SEARCHDECK_DATABASE_URL: postgresUrl };
  migrate(env);
  return {
    engine,
    env,
    postgresUrl,
    analyze: async () => {
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      try {
        // A fresh server may run with autovacuum off: the planner needs the statistics.
        await client.query('vacuum analyze');
      } finally {
        await client.end();
      }
    },
    remove: async () => {
      rmSync(dataDir, { recursive: true, force: true });
      await onServer((client) => client.query(`drop database if exists ${database} with (force)`));
    },
  };
}

function migrate(env: Record<string, string>): void {
  execFileSync(process.execPath, ['dist/src/main.js', 'migrate'], {
    cwd: root,
    env: { ...process.env, SEARCHDECK_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function onServer<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: benchPostgresUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
