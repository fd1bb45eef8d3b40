import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import type { RewriteSource } from '../../src/evaluation/rewrite-source.js';
import type { Tuning } from '../../src/http/area.js';
import { ensureAdminPassword } from '../../src/security/admin-credentials.js';
import { type Engine, openStore, type Store } from '../../src/storage/database.js';
import { postgresSkipReason, testDatabaseUrl } from './postgres.js';
import { ADMIN_PASSWORD, copySqliteTemplate, leaseSchema } from './templates.js';

export { ADMIN_PASSWORD };
export const adminAuth = `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}`;
export const engines: Engine[] = ['sqlite', 'postgres'];

/** Why tests on this engine are skipped here (undefined: they run). Throws under CI=true. */
export async function skipReason(engine: Engine): Promise<string | undefined> {
  return engine === 'postgres' ? postgresSkipReason() : undefined;
}

/**
 * `test` on SQLite and nothing on PostgreSQL: for a test of the HTTP contract (validation, status
 * codes, error bodies, wire formats, authentication) where the engine plays no part. A test whose
 * answer depends on what the database stores, reads back, counts, orders, locks or notifies runs
 * on both engines with plain `test` (docs/development.md, "Which engines a test runs on").
 */
export function contractTest(engine: Engine): typeof test {
  return engine === 'sqlite' ? test : skipOnThisEngine;
}

// Registers nothing: the test is not run, and so not counted as skipped either.
const skipOnThisEngine = (() => Promise.resolve()) as unknown as typeof test;

export interface TestStore {
  store: Store;
  config: Config;
  /** Another connection to the same database, as a second service node would have. */
  openAnother(): Store;
  close(): Promise<void>;
}

/**
 * A fresh, migrated database holding the admin's password (ADMIN_PASSWORD): a copy of a SQLite
 * file migrated once per process, or a PostgreSQL schema from the process's pool.
 */
export async function freshStore(engine: Engine, env: Record<string, string> = {}): Promise<TestStore> {
  const dataDir = mkdtempSync(join(tmpdir(), 'searchdeck-test-'));
  let release = async () => {};
  let pgSchema: string | undefined;
  if (engine === 'postgres') {
    const lease = await leaseSchema();
    pgSchema = lease.schema;
    release = lease.release;
  } else {
    await copySqliteTemplate(dataDir);
  }
  const config = loadConfig({
    SEARCHDECK_DATA_DIR: dataDir,
    SEARCHDECK_ADMIN_PASSWORD: ADMIN_PASSWORD,
    SEARCHDECK_LOG_LEVEL: 'silent',
    ...(engine === 'postgres' ? { SEARCHDECK_DATABASE_URL: testDatabaseUrl } : {}),
    ...env,
  });
  const store = openStore({ ...config, pgSchema });
  const others: Store[] = [];
  return {
    store,
    config,
    openAnother: () => {
      const other = openStore({ ...config, pgSchema });
      others.push(other);
      return other;
    },
    close: async () => {
      for (const other of others) await other.close();
      await store.close();
      await release();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface TestApp {
  app: FastifyInstance;
  store: Store;
  config: Config;
}

export interface BuildOptions {
  env?: Record<string, string>;
  now?: () => Date;
  logger?: Parameters<typeof buildApp>[0]['logger'];
  tuning?: Tuning;
  rewrites?: RewriteSource;
}

/** The real app on a fresh database of the engine; closed when the test ends. */
export async function build(t: TestContext, engine: Engine, options: BuildOptions = {}): Promise<TestApp> {
  const fresh = await freshStore(engine, options.env);
  await ensureAdminPassword(fresh.store.db, fresh.config.adminPassword);
  const app = await buildApp({
    config: fresh.config,
    store: fresh.store,
    secretKey: Buffer.alloc(32, 7),
    logger: options.logger ?? false,
    ...(options.now ? { now: options.now } : {}),
    tuning: { ...TEST_TUNING, ...options.tuning },
    ...(options.rewrites ? { rewrites: options.rewrites } : {}),
  });
  t.after(async () => {
    await app.close();
    await fresh.close();
  });
  return { app, store: fresh.store, config: fresh.config };
}

/**
 * How tests build apps unless they say otherwise: each route's schemas compiled when a request
 * first needs them, since a test sends few of the routes any request (the service compiles all
 * at start; the compiled functions are the same), and the analytics rollup run when a test
 * asks (`app.parts.analytics`), not every five seconds behind the back of tests of other areas.
 */
export const TEST_TUNING: Tuning = { compileSchemas: 'at-first-use', analyticsRollup: false };

/**
 * What several nodes of one database wait for between looking at the others' changes: short,
 * so that a test waits milliseconds for what the service does within a second.
 */
export const SHORT_POLLS: Tuning = { changePollMs: 20 };

/**
 * Several app nodes on one fresh database (one PostgreSQL schema or one SQLite file), each
 * looking for the others' changes every SHORT_POLLS unless `tuning` says otherwise.
 */
export async function buildNodes(
  t: TestContext,
  engine: Engine,
  count: number,
  options: BuildOptions = {},
): Promise<TestApp[]> {
  const fresh = await freshStore(engine, options.env);
  await ensureAdminPassword(fresh.store.db, fresh.config.adminPassword);
  const tuning = { ...TEST_TUNING, ...SHORT_POLLS, ...options.tuning };
  const nodes: TestApp[] = [];
  for (let i = 0; i < count; i++) {
    const store = i === 0 ? fresh.store : fresh.openAnother();
    const app = await buildApp({
      config: fresh.config,
      store,
      secretKey: Buffer.alloc(32, 7),
      logger: options.logger ?? false,
      ...(options.now ? { now: options.now } : {}),
      tuning,
    });
    nodes.push({ app, store, config: fresh.config });
  }
  t.after(async () => {
    for (const node of nodes) await node.app.close();
    await fresh.close();
  });
  return nodes;
}
