import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { ConfigError } from '../config.js';
import { prepareDirectory } from '../storage/directory.js';

/**
 * The service's 32-byte secret key (encrypts stored secrets, signs tokens). From
 * SEARCHDECK_SECRET_KEY when set; with SQLite otherwise generated once into the data dir;
 * PostgreSQL requires it, because every node must share it.
 */
export function loadSecretKey(config: Config): Buffer {
  if (config.secretKey) return Buffer.from(config.secretKey, 'base64');
  if (config.databaseUrl) {
    throw new ConfigError(
      'SEARCHDECK_SECRET_KEY (--secret-key) is required with PostgreSQL, so that all nodes share it; ' +
        'generate one with: openssl rand -base64 32',
    );
  }
  const file = join(config.dataDir, 'secret.key');
  try {
    return decode(readFileSync(file, 'utf8'), file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  prepareDirectory(config.dataDir);
  const key = randomBytes(32);
  // 'wx': never overwrite a key another process wrote meanwhile; read theirs instead.
  try {
    writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return decode(readFileSync(file, 'utf8'), file);
  }
}

function decode(text: string, file: string): Buffer {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== 32) throw new ConfigError(`${file} does not hold a 32-byte base64 key`);
  return key;
}
