import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { type BulkTransaction, plainBulkTransaction, sqliteBulkTransaction } from './bulk-transaction.js';
import { prepareDirectory } from './directory.js';
import { guardedPool } from './guarded-pool.js';
import { LiteralLimits } from './literal-limits.js';
import { type Notifications, postgresNotifications } from './notifications.js';
import { countingDialect, PoolStats } from './pool-stats.js';
import { type PointReads, registerPointReads } from './prepared-query.js';
import type { Database } from './schema.js';
import { sqliteReader } from './sqlite-reader.js';
import { recordBusyWait } from './transaction.js';

export type Engine = 'sqlite' | 'postgres';

/**
 * An open database: the Kysely handle, which engine is behind it, what the engine can do
 * that the other cannot, and how to close it. Code outside this folder asks for a
 * capability, never for the engine's name.
 */
export interface Store {
  readonly db: Kysely<Database>;
  readonly engine: Engine;
  /** Notices between the nodes sharing the database; undefined where there are none (SQLite). */
  readonly notifications: Notifications | undefined;
  /**
   * Whether statements run synchronously on the event loop (better-sqlite3): long work
   * must then be cut into short statements, while an asynchronous driver lets the
   * database do it in one.
   */
  readonly synchronousDriver: boolean;
  /**
   * A handle for long reads (listings that rank or count many rows): on SQLite its statements
   * run on a worker thread's own read-only connection, so they never hold the event loop; on
   * PostgreSQL it is `db`. It reads committed data only: never use it inside a transaction.
   */
  readonly reader: Kysely<Database>;
  /**
   * One transaction on `db` that writes many rows at once: on SQLite its commit leaves the
   * disk's waits off the event loop (bulk-transaction.ts); on PostgreSQL it is a plain one.
   */
  readonly bulkTransaction: BulkTransaction;
  /** How the connections are used (in use, waiting, errors); SQLite has one, which work queues for. */
  readonly pool: PoolStats;
  close(): Promise<void>;
}

export interface StoreOptions {
  dataDir: string;
  databaseUrl?: string | undefined;
  /** PostgreSQL schema to work in (tests use a fresh one per test file). */
  pgSchema?: string | undefined;
  /** PostgreSQL pool size. */
  poolSize?: number | undefined;
  /** PostgreSQL statement_timeout of every connection, in milliseconds. */
  statementTimeoutMs?: number | undefined;
  /** PostgreSQL max_parallel_workers_per_gather of every connection (0 by default). */
  pgParallelWorkers?: number | undefined;
}

// int8 (count(*), sums) would otherwise arrive as strings; our counts stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));

/** Opens the embedded SQLite database under the data dir, or PostgreSQL when a URL is configured. */
export function openStore(options: StoreOptions): Store {
  return options.databaseUrl
    ? openPostgres(options.databaseUrl, options)
    : openSqlite(options.dataDir, options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS);
}

/** The SQLite file of a data dir. */
export function sqliteFile(dataDir: string): string {
  return join(dataDir, 'searchdeck.db');
}

function openSqlite(dataDir: string, busyTimeoutMs: number): Store {
  prepareDirectory(dataDir);
  const sqlite = new SqliteDatabase(sqliteFile(dataDir));
  sqlite.pragma('journal_mode = WAL');
  // FULL: a commit is on disk before the answer goes out, so acknowledged writes survive
  // a crash of the process and of the machine (NORMAL would only survive the process).
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  // How long a write waits for another process's lock: the statement timeout's bound on SQLite.
  sqlite.pragma(`busy_timeout = ${busyTimeoutMs}`);
  const pool = new PoolStats(1);
  const dialect = new SqliteDialect({ database: withStatementCache(sqlite) });
  const db = new Kysely<Database>({
    dialect: countingDialect(dialect, pool),
    plugins: [new LiteralLimits()],
  });
  recordBusyWait(db, busyTimeoutMs);
  const reader = sqliteReader(sqliteFile(dataDir));
  const bulkTransaction = sqliteBulkTransaction(db, sqliteFile(dataDir), reader.checkpoint);
  const points = pointReadConnection(sqliteFile(dataDir));
  registerPointReads(db, points.reads);
  return {
    db,
    engine: 'sqlite',
    notifications: undefined,
    synchronousDriver: true,
    reader: reader.db,
    bulkTransaction,
    pool,
    close: async () => {
      await reader.db.destroy();
      // Before the main connection, which then closes last and so checkpoints and removes the WAL.
      points.close();
      await db.destroy();
    },
  };
}

/**
 * A second connection, read-only, for the prepared point reads of the hot paths (a link
 * check, the failure window, a token's client): they run on it at once, off Kysely's queue for
 * the main connection. In WAL mode it reads the last committed state, so it sees every write
 * the main connection has committed, and never one of a transaction still under way.
 */
function pointReadConnection(file: string): { reads: PointReads; close(): void } {
  let connection: SqliteDatabase.Database | undefined;
  let closed = false;
  // Prepared on first use, once the migrations have made the tables; texts that are not reads
  // are remembered as such and left to Kysely.
  const statements = new Map<string, SqliteDatabase.Statement | null>();
  return {
    reads(sql, parameters) {
      // Once closed, reads go to Kysely, which answers them as a closed store does.
      if (closed) return undefined;
      let statement = statements.get(sql);
      if (statement === undefined) {
        connection ??= openReadOnly(file);
        const prepared = connection.prepare(sql);
        statement = prepared.reader ? prepared : null;
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
        statements.set(sql, statement);
      }
      return statement === null ? undefined : statement.all(parameters);
    },
    close() {
      closed = true;
      connection?.close();
      connection = undefined;
      statements.clear();
    },
  };
}

function openReadOnly(file: string): SqliteDatabase.Database {
  const connection = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  connection.pragma('busy_timeout = 5000');
  return connection;
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely prepares every query anew; preparing costs about as much as running a point
 * lookup. Statements are kept by their SQL (values are bound separately, so the set of
 * distinct texts is small), least recently used dropped first. A statement still being
 * iterated is busy and cannot be shared: then a fresh one is prepared.
 */
function withStatementCache(sqlite: SqliteDatabase.Database) {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return {
    prepare(text: string) {
      const cached = cache.get(text);
      if (cached && !cached.busy) {
        cache.delete(text);
        cache.set(text, cached);
        return cached;
      }
      const statement = sqlite.prepare(text);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      cache.set(text, statement);
      return statement;
    },
    close: () => sqlite.close(),
  };
}

// How long a request waits for a pooled connection (all busy, or the server not
// answering) before it is answered 503 instead of hanging.
const CONNECTION_TIMEOUT_MS = 10_000;
const DEFAULT_STATEMENT_TIMEOUT_MS = 5000;

function openPostgres(url: string, options: StoreOptions): Store {
  // Set at connection start, so every statement of every connection is bounded,
  // migrations included; a runaway query cannot hold a connection for minutes.
  const settings = [
    `-c statement_timeout=${options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS}`,
    // Requests read a page, a count, a row: starting parallel workers for one costs more than
    // the plan saves (a tag-filtered page of 100,000 rules took 14 ms with workers, 4 without).
    `-c max_parallel_workers_per_gather=${options.pgParallelWorkers ?? 0}`,
  ];
  if (options.pgSchema) settings.push(`-c search_path=${options.pgSchema}`);
  const max = options.poolSize ?? 10;
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: CONNECTION_TIMEOUT_MS,
    options: settings.join(' '),
  });
  const stats = new PoolStats(max);
  const dialect = new PostgresDialect({ pool: guardedPool(pool, stats) });
  const db = new Kysely<Database>({ dialect: countingDialect(dialect, stats) });
  return {
    db,
    engine: 'postgres',
    notifications: postgresNotifications(url, options.pgSchema || undefined),
    synchronousDriver: false,
    reader: db,
    bulkTransaction: plainBulkTransaction(db),
    pool: stats,
    close: () => db.destroy(),
  };
}
