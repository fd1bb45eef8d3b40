// How the store's connections are used, counted where Kysely takes and gives back a
// connection, so both engines report the same things: PostgreSQL's pool of `max`
// connections, and SQLite's one connection that work queues for (Kysely's mutex).
import type { DatabaseConnection, Dialect, Driver } from 'kysely';

/** Why the pool failed: a pooled connection broke, or no connection could be had. */
export type PoolErrorKind = 'connection-lost' | 'connect-failed';

export type PoolErrorListener = (kind: PoolErrorKind, error: unknown) => void;

/** Plain numbers, read when metrics are scraped; counting costs an add per query. */
export class PoolStats {
  /** Connections held by a query or transaction right now. */
  inUse = 0;
  /** Queries and transactions waiting for a connection right now. */
  waiting = 0;
  /** Connections handed out since the store opened. */
  acquired = 0;
  /** Seconds spent waiting for a connection since the store opened, all waits summed. */
  waitSeconds = 0;
  readonly errors: Record<PoolErrorKind, number> = { 'connection-lost': 0, 'connect-failed': 0 };
  readonly #listeners = new Set<PoolErrorListener>();

  /** @param max how many connections the pool may open (1 for SQLite). */
  constructor(readonly max: number) {}

  /** Counts a pool error and tells the listeners (the app logs it). */
  failed(kind: PoolErrorKind, error: unknown): void {
    this.errors[kind] += 1;
    for (const listener of this.#listeners) listener(kind, error);
  }

  /** Listens for pool errors; answers the function that stops listening. */
  onError(listener: PoolErrorListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

/** The dialect with its driver's connection checkouts counted in `stats`. */
export function countingDialect(dialect: Dialect, stats: PoolStats): Dialect {
  return {
    createDriver: () => countingDriver(dialect.createDriver(), stats),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}

function countingDriver(driver: Driver, stats: PoolStats): Driver {
  const acquireConnection = async (): Promise<DatabaseConnection> => {
    const started = performance.now();
    stats.waiting += 1;
    try {
      const connection = await driver.acquireConnection();
      stats.inUse += 1;
      stats.acquired += 1;
      return connection;
    } finally {
      stats.waiting -= 1;
      stats.waitSeconds += (performance.now() - started) / 1000;
    }
  };
  const releaseConnection = async (connection: DatabaseConnection): Promise<void> => {
    stats.inUse -= 1;
    await driver.releaseConnection(connection);
  };
  // Every other method goes to the driver as it is; the savepoint methods are optional,
  // and Kysely asks whether the driver has them.
  const { savepoint, rollbackToSavepoint, releaseSavepoint } = driver;
  return {
    init: () => driver.init(),
    acquireConnection,
    beginTransaction: (connection, settings) => driver.beginTransaction(connection, settings),
    commitTransaction: (connection) => driver.commitTransaction(connection),
    rollbackTransaction: (connection) => driver.rollbackTransaction(connection),
    ...(savepoint ? { savepoint: savepoint.bind(driver) } : {}),
    ...(rollbackToSavepoint ? { rollbackToSavepoint: rollbackToSavepoint.bind(driver) } : {}),
    ...(releaseSavepoint ? { releaseSavepoint: releaseSavepoint.bind(driver) } : {}),
    releaseConnection,
    destroy: () => driver.destroy(),
  };
}
