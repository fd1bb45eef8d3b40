// The pg pool as Kysely sees it, with the driver's code-less connection failures turned
// into DatabaseUnavailableError, so the error handler can answer 503 instead of 500.
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';
import { DatabaseUnavailableError } from './unavailable.js';

/**
 * Wraps a pool for Kysely's PostgresDialect. A failed checkout (refused, timed out, the
 * server starting or shutting down) means the database is unavailable; so does a query
 * failing on a client whose connection broke ("Connection terminated unexpectedly" has no
 * code, but pg reports the broken client on its `error` event first).
 *
 * pg-pool listens for `error` only on idle clients; a connection lost while a client is
 * checked out would emit `error` with no listener, which crashes the process. So each
 * checked-out client gets a listener until it is released (and then is destroyed, not
 * pooled, when it broke).
 */
export function guardedPool(pool: pg.Pool): PostgresPool {
  const lost = new WeakSet<pg.PoolClient>();
  // Also what keeps a lost connection from crashing the process: pg re-emits it here.
  pool.on('error', (_error, client) => lost.add(client));
  return {
    async connect() {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw new DatabaseUnavailableError('unreachable', error);
      }
      return guardedClient(client, lost);
    },
    end: () => pool.end(),
  };
}

function guardedClient(client: pg.PoolClient, lost: WeakSet<pg.PoolClient>): PostgresPoolClient {
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken = error;
    lost.add(client);
  };
  client.on('error', onError);
  const failed = (error: unknown): never => {
    throw lost.has(client) ? new DatabaseUnavailableError('unreachable', error) : error;
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
    return (
      client.query(sqlOrCursor, [...(parameters ?? [])]) as unknown as Promise<PostgresQueryResult<R>>
    ).catch(failed);
  }
  return {
    query,
    release: () => {
      client.removeListener('error', onError);
      client.release(broken);
    },
  };
}
