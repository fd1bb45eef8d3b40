import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import type { RewriteSource } from '../../src/evaluation/rewrite-source.js';
import type { Tuning } from '../../src/http/area.js';
import { ensureAdminPassword } from '../../src/security/admin-credentials.js';
import { type Engine, openStore, type Store } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { createTestSchema, postgresSkipReason, testDatabaseUrl } from './postgres.js';

export const ADMIN_PASSWORD = 'test-admin-password';
export const adminAuth = `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}`;
export const engines: Engine[] = ['sqlite', 'postgres'];

/** Why tests on this engine are skipped here (undefined: they run). Throws under CI=true. */
export async function skipReason(engine: Engine): Promise<string | undefined> {
  return engine === 'postgres' ? postgresSkipReason() : undefined;
}

export interface TestStore {
  store: Store;
  config: Config;
  /** Another connection to the same database, as a second service node would have. */
  openAnother(): Store;
  close(): Promise<void>;
}

/** A fresh, migrated database: a temporary SQLite file, or a new PostgreSQL schema. */
export async function freshStore(engine: Engine, env: Record<string, string> = {}): Promise<TestStore> {
  const dataDir = mkdtempSync(join(tmpdir(), 'searchdeck-test-'));
  let dropSchema = async () => {};
  let pgSchema: string | undefined;
  if (engine === 'postgres') {
    const created = await createTestSchema();
    pgSchema = created.schema;
    dropSchema = created.drop;
  }
  const config = loadConfig({
    SEARCHDECK_DATA_DIR: dataDir,
    SEARCHDECK_ADMIN_PASSWORD: ADMIN_PASSWORD,
    SEARCHDECK_LOG_LEVEL: 'silent',
    ...(engine === 'postgres' ? { SEARCHDECK_DATABASE_URL: testDatabaseUrl } : {}),
    ...env,
  });
  const store = openStore({ ...config, pgSchema });
  try {
    await migrateToLatest(store);
  } catch (error) {
    await store.close();
    await dropSchema();
    throw error;
  }
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
      await dropSchema();
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
    ...(options.tuning ? { tuning: options.tuning } : {}),
    ...(options.rewrites ? { rewrites: options.rewrites } : {}),
  });
  t.after(async () => {
    await app.close();
    await fresh.close();
  });
  return { app, store: fresh.store, config: fresh.config };
}

/** Several app nodes on one fresh database (one PostgreSQL schema or one SQLite file). */
export async function buildNodes(
  t: TestContext,
  engine: Engine,
  count: number,
  options: BuildOptions = {},
): Promise<TestApp[]> {
  const fresh = await freshStore(engine, options.env);
  await ensureAdminPassword(fresh.store.db, fresh.config.adminPassword);
  const nodes: TestApp[] = [];
  for (let i = 0; i < count; i++) {
    const store = i === 0 ? fresh.store : fresh.openAnother();
    const app = await buildApp({
      config: fresh.config,
      store,
      secretKey: Buffer.alloc(32, 7),
      logger: options.logger ?? false,
      ...(options.now ? { now: options.now } : {}),
      ...(options.tuning ? { tuning: options.tuning } : {}),
    });
    nodes.push({ app, store, config: fresh.config });
  }
  t.after(async () => {
    for (const node of nodes) await node.app.close();
    await fresh.close();
  });
  return nodes;
}
