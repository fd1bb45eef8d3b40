// Two app nodes on one database for comparing the fast lanes with the routes they stand in for.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { Tuning } from '../../src/http/area.js';
import { ensureAdminPassword } from '../../src/security/admin-credentials.js';
import type { Engine } from '../../src/storage/database.js';
import { adminAuth, freshStore, SHORT_POLLS, TEST_TUNING } from './app.js';

type AppLogger = Parameters<typeof buildApp>[0]['logger'];

export interface LaneAndRoute<T> {
  /** The node with the lanes. */
  fast: FastifyInstance;
  /** The node that answers every request by its route. */
  route: FastifyInstance;
  fastPort: number;
  routePort: number;
  /** What `prepare` answered. */
  prepared: T;
}

/**
 * A node with the lanes and one without, on one fresh database, both listening. `prepare`
 * runs on the first before the second is built, so that the second loads at start what it
 * made (typeahead indexes, compiled rules). Closed when the test ends.
 */
export async function laneAndRouteNodes<T>(
  t: TestContext,
  engine: Engine,
  prepare: (fast: FastifyInstance) => Promise<T>,
  /** Each node's logger (none by default). */
  loggers: { fast?: AppLogger; route?: AppLogger } = {},
): Promise<LaneAndRoute<T>> {
  const fresh = await freshStore(engine);
  await ensureAdminPassword(fresh.store.db, fresh.config.adminPassword);
  const make = (tuning: Tuning, logger: AppLogger = false) =>
    buildApp({
      config: fresh.config,
      store: fresh.store,
      secretKey: Buffer.alloc(32, 7),
      logger,
      tuning: { ...TEST_TUNING, ...SHORT_POLLS, ...tuning },
    });
  const apps: FastifyInstance[] = [];
  t.after(async () => {
    for (const app of apps) await app.close();
    await fresh.close();
  });
  const fast = await make({}, loggers.fast);
  apps.push(fast);
  const prepared = await prepare(fast);
  const route = await make({ earlyAnswers: false }, loggers.route);
  apps.push(route);
  const ports: number[] = [];
  for (const app of apps) {
    await app.listen({ port: 0, host: '127.0.0.1' });
    ports.push((app.server.address() as AddressInfo).port);
  }
  return { fast, route, fastPort: ports[0]!, routePort: ports[1]!, prepared };
}

/** Asserts that the request histogram counted at least `atLeast` answers 200 of `route` to GET. */
export async function assertCounted(app: FastifyInstance, route: string, atLeast: number): Promise<void> {
  const metrics = await app.inject({ url: '/metrics', headers: { authorization: adminAuth } });
  const series = `searchdeck_http_request_duration_seconds_count{method="GET",route="${route}",status="200"} `;
  const line = metrics.body.split('\n').find((l) => l.startsWith(series));
  assert.ok(line !== undefined && Number(line.slice(series.length)) >= atLeast, `${route}: ${line}`);
}
