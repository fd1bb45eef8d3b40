// The pg pool as Kysely sees it, with the driver's code-less connection failures turned
// into DatabaseUnavailableError, so the error handler can answer 503 instead of 500.
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';
import type { PoolStats } from './pool-stats.js';
import { statementName } from './prepared-query.js';
import { DatabaseUnavailableError, databaseFailure } from './unavailable.js';

/**
 * Wraps a pool for Kysely's PostgresDialect. A failed checkout (refused, timed out, the
 * server starting or shutting down) means the database is unavailable; so does a query
 * failing on a client whose connection broke ("Connection terminated unexpectedly" has no
 * code, but pg reports the broken client on its `error` event first).
 *
 * pg-pool listens for `error` only on idle clients; a connection lost while a client is
 * checked out would emit `error` with no listener, which crashes the process. So each
 * checked-out client gets a listener until it is released (and then is destroyed, not
 * pooled, when it broke, or when a query on it failed because the server ended the
 * connection). Both kinds of failure are counted in `stats`, which the app logs.
 */
export function guardedPool(pool: pg.Pool, stats: PoolStats): PostgresPool {
  const lost = new WeakSet<pg.PoolClient>();
  // Also what keeps a lost connection from crashing the process: pg re-emits it here.
  pool.on('error', (error, client) => {
    // Counted once per client, however many times it reports.
    if (!lost.has(client)) stats.failed('connection-lost', error);
    lost.add(client);
  });
  return {
    async connect() {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        stats.failed('connect-failed', error);
        throw new DatabaseUnavailableError('unreachable', error);
      }
      return guardedClient(client, lost, stats);
    },
    end: () => pool.end(),
  };
}

function guardedClient(
  client: pg.PoolClient,
  lost: WeakSet<pg.PoolClient>,
  stats: PoolStats,
): PostgresPoolClient {
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken = error;
    if (!lost.has(client)) stats.failed('connection-lost', error);
    lost.add(client);
  };
  client.on('error', onError);
  const failed = (error: unknown): never => {
    if (lost.has(client)) throw new DatabaseUnavailableError('unreachable', error);
    // The server ended this connection (57P01 when an administrator terminates the
    // backend): its socket closes a moment later, but released now the client would go
    // back to the pool and be handed to the next request before pg notices. Destroy it.
    if (databaseFailure(error) === 'unreachable') {
      broken = error instanceof Error ? error : new Error(String(error));
    }
    throw error;
  };
  function query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  function query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  function query<R>(
    sqlOrCursor: string | PostgresCursor<R>,
    parameters?: ReadonlyArray<unknown>,
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    if (typeof sqlOrCursor !== 'string') {
      // Cursors (Kysely's streaming) go through untouched; their reads fail with pg's error.
      return client.query(sqlOrCursor as never) as unknown as PostgresCursor<R>;
    }
    const values = [...(parameters ?? [])];
    // A hot-path query (prepared-query.ts) is parsed once per connection, then only bound.
    const name = statementName(sqlOrCursor);
    const result = name
      ? client.query({ name, text: sqlOrCursor, values })
      : client.query(sqlOrCursor, values);
    return (result as unknown as Promise<PostgresQueryResult<R>>).catch(failed);
  }
  return {
    query,
    release: () => {
      client.removeListener('error', onError);
      client.release(broken);
    },
  };
}
