import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { ensureAdminPassword } from './security/admin-credentials.js';
import { loadSecretKey } from './security/secret-key.js';
import { ensureAddressFree, ensureDataDir, listenFailure, openMigratedStore } from './startup.js';
import type { Store } from './storage/database.js';

const SHUTDOWN_GRACE_MS = 10_000;

/** Opens the database, applies migrations and makes sure an admin password exists. */
export async function prepareStore(config: Config, print: (line: string) => void): Promise<Store> {
  const { store } = await openMigratedStore(config);
  try {
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

/**
 * Starts the service: checks what the machine may refuse (address, data dir, database) before
 * anything else, listens, and shuts down gracefully on a signal or an uncaught error.
 */
export async function serve(config: Config): Promise<FastifyInstance> {
  await ensureAddressFree(config);
  ensureDataDir(config);
  const secretKey = loadSecretKey(config);
  const store = await prepareStore(config, (line) => process.stdout.write(`${line}\n`));
  const app = await buildApp({ config, store, secretKey });
  app.addHook('onClose', async () => store.close());
  let address: string;
  try {
    address = await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await app.close();
    throw listenFailure(error, config) ?? error;
  }
  // Printed whatever the log level, so operators and scripts see where it listens.
  process.stdout.write(`searchdeck listening at ${address}\n`);
  stopGracefully(app);
  return app;
}

/**
 * On SIGTERM, SIGINT (and the other signals close-with-grace handles) the app stops accepting,
 * finishes in-flight requests, answers new ones on open connections 503, closes the database
 * and exits 0; past the grace period, or on a second signal, it exits 1 at once. An uncaught
 * error closes the same way and exits 1.
 */
function stopGracefully(app: FastifyInstance): void {
  closeWithGrace({ delay: SHUTDOWN_GRACE_MS, logger: app.log }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an uncaught error');
    else app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    await app.close();
  });
}
