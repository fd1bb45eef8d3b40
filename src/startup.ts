// The steps of a start that the machine can refuse: the data dir, the listening address and
// the database. Each failure becomes a ConfigError of one line naming the setting to change,
// and each step runs before anything is printed about the admin password.
import { createServer } from 'node:net';
import { type Config, ConfigError, settingLabel } from './config.js';
import { openStore, type Store, sqliteFile } from './storage/database.js';
import { DirectoryError, prepareDirectory } from './storage/directory.js';
import { migrateToLatest } from './storage/migrate.js';
import { postgresOpenFailure, sqliteOpenFailure } from './storage/open-failure.js';

/** Makes the data dir when the configuration uses it (SQLite), or says in one line why it cannot. */
export function ensureDataDir(config: Config): void {
  if (config.databaseUrl) return;
  try {
    prepareDirectory(config.dataDir);
  } catch (error) {
    if (!(error instanceof DirectoryError)) throw error;
    throw new ConfigError(`${settingLabel('dataDir')}: ${error.message}; point it at a writable directory`);
  }
}

/** The one-line reason a listen on the configured address failed, or undefined for another error. */
export function listenFailure(
  error: unknown,
  config: Pick<Config, 'host' | 'port'>,
): ConfigError | undefined {
  const at = `${config.host}:${config.port}`;
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return new ConfigError(
        `${settingLabel('port')}: ${at} is already in use; stop the process that holds it or choose another port`,
      );
    case 'EACCES':
      return new ConfigError(
        `${settingLabel('port')}: this process may not listen on port ${config.port}; choose a port above 1023`,
      );
    case 'EADDRNOTAVAIL':
      return new ConfigError(
        `${settingLabel('host')}: ${config.host} is no address of this machine; use 127.0.0.1, 0.0.0.0 or an address of one of its interfaces`,
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ConfigError(`${settingLabel('host')}: "${config.host}" cannot be resolved to an address`);
    default:
      return undefined;
  }
}

/**
 * Checks, by listening for a moment, that the configured address is free. It runs before
 * the database is opened, so a port in use is reported at once, before a generated admin
 * password would be printed (and lost with the start that failed).
 */
export async function ensureAddressFree(config: Config): Promise<void> {
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ host: config.host, port: config.port, exclusive: true }, resolve);
    });
  } catch (error) {
    throw listenFailure(error, config) ?? error;
  }
  await new Promise((resolve) => probe.close(resolve));
}

/**
 * Opens the configured database and applies the pending migrations (named in `applied`); a
 * refusal is one line naming the setting.
 */
export async function openMigratedStore(config: Config): Promise<{ store: Store; applied: string[] }> {
  ensureDataDir(config);
  let store: Store | undefined;
  try {
    store = openStore(config);
    return { store, applied: await migrateToLatest(store) };
  } catch (error) {
    await store?.close();
    const failure = config.databaseUrl
      ? postgresOpenFailure(error, config.databaseUrl)
      : sqliteOpenFailure(error, sqliteFile(config.dataDir));
    if (failure === undefined) throw error;
    throw new ConfigError(`${settingLabel(config.databaseUrl ? 'databaseUrl' : 'dataDir')}: ${failure}`);
  }
}
