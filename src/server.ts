import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { ensureAdminPassword } from './security/admin-credentials.js';
import { loadSecretKey } from './security/secret-key.js';
import { openStore, type Store } from './storage/database.js';
import { migrateToLatest } from './storage/migrate.js';

const SHUTDOWN_GRACE_MS = 10_000;

/** Opens the database, applies migrations and makes sure an admin password exists. */
export async function prepareStore(config: Config, print: (line: string) => void): Promise<Store> {
  const store = openStore(config);
  try {
    await migrateToLatest(store);
    const { generated } = await ensureAdminPassword(store.db, config.adminPassword);
    if (generated) {
      print(`Generated admin password (shown once, only its hash is kept): ${generated}`);
      print('Log in as user "admin"; change it with: searchdeck admin set-password');
    }
    return store;
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** Starts the service: listens, and shuts down gracefully on SIGTERM/SIGINT. */
export async function serve(config: Config): Promise<FastifyInstance> {
  const secretKey = loadSecretKey(config);
  const store = await prepareStore(config, (line) => process.stdout.write(`${line}\n`));
  const app = await buildApp({ config, store, secretKey });
  app.addHook('onClose', async () => store.close());
  const address = await app.listen({ host: config.host, port: config.port });
  // Printed whatever the log level, so operators and scripts see where it listens.
  process.stdout.write(`searchdeck listening at ${address}\n`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => {
      app.log.warn('in-flight requests did not finish in time; exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    app.close().then(
      () => process.exit(0),
      (error) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  return app;
}
