// The store's connection use as Prometheus metrics, read from PoolStats when scraped, and
// its errors in the log (pg's pool reports a lost idle connection on an event nobody saw).
import type { FastifyBaseLogger } from 'fastify';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { PoolStats } from './pool-stats.js';

/** Exposes the pool's metrics and logs its errors; answers the function that stops the logging. */
export function watchPool(stats: PoolStats, registry: Registry, log: FastifyBaseLogger): () => void {
  registerPoolMetrics(registry, stats);
  return stats.onError((kind, error) => log.warn({ err: error, kind }, 'database pool error'));
}

/** Registers the database pool metrics (both engines; SQLite's pool is its one connection). */
function registerPoolMetrics(registry: Registry, stats: PoolStats): void {
  const registers = [registry];
  new Gauge({
    name: 'searchdeck_db_pool_connections_in_use',
    help: 'Database connections held by a query or transaction now',
    registers,
    collect() {
      this.set(stats.inUse);
    },
  });
  new Gauge({
    name: 'searchdeck_db_pool_connections_max',
    help: 'Database connections the pool may open (SQLite: its one connection)',
    registers,
    collect() {
      this.set(stats.max);
    },
  });
  new Gauge({
    name: 'searchdeck_db_pool_waiting_requests',
    help: 'Queries and transactions waiting for a database connection now',
    registers,
    collect() {
      this.set(stats.waiting);
    },
  });
  new Counter({
    name: 'searchdeck_db_pool_acquires_total',
    help: 'Database connections handed out to a query or transaction',
    registers,
    collect() {
      this.reset();
      this.inc(stats.acquired);
    },
  });
  new Counter({
    name: 'searchdeck_db_pool_wait_seconds_total',
    help: 'Time spent waiting for a database connection, all waits summed',
    registers,
    collect() {
      this.reset();
      this.inc(stats.waitSeconds);
    },
  });
  new Counter({
    name: 'searchdeck_db_pool_errors_total',
    help: 'Database pool errors: a pooled connection lost (connection-lost), or none could be opened (connect-failed)',
    labelNames: ['kind'] as const,
    registers,
    collect() {
      this.reset();
      for (const [kind, count] of Object.entries(stats.errors)) this.inc({ kind }, count);
    },
  });
}
