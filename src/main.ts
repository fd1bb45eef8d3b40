#!/usr/bin/env node
import { createInterface } from 'node:readline';
import { ConfigError, describeSettings, loadConfig } from './config.js';
import { setAdminPassword } from './security/admin-credentials.js';
import { prepareStore, serve } from './server.js';
import { openStore } from './storage/database.js';
import { migrateToLatest } from './storage/migrate.js';

const usage = `searchdeck: the experience layer of a search platform

Usage:
  searchdeck serve [flags]                 run the service
  searchdeck migrate [flags]               apply pending database migrations and exit
  searchdeck admin set-password [flags]    set the admin password (read from standard input,
                                           or --password)
  searchdeck --help                        this text

Flags and environment variables (a flag wins over its variable):
${describeSettings()
  .map((s) => `  ${s.flag.padEnd(18)} ${s.env.padEnd(27)} default ${s.default}`)
  .join('\n')}
`;

async function readPassword(): Promise<string> {
  if (process.stdin.isTTY) process.stdout.write('New admin password: ');
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) return line.trim();
  return '';
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(usage);
    return 0;
  }
  if (command === 'serve') {
    await serve(loadConfig(process.env, rest));
    return -1;
  }
  if (command === 'migrate') {
    const store = openStore(loadConfig(process.env, rest));
    const applied = await migrateToLatest(store);
    await store.close();
    process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
    return 0;
  }
  if (command === 'admin' && rest[0] === 'set-password') {
    const args = rest.slice(1);
    const at = args.indexOf('--password');
    const password = at >= 0 ? (args.splice(at, 2)[1] ?? '') : await readPassword();
    if (password.length < 8) {
      process.stderr.write('the password must be at least 8 characters long\n');
      return 2;
    }
    const store = await prepareStore(loadConfig(process.env, args), () => {});
    await setAdminPassword(store.db, password);
    await store.close();
    process.stdout.write('admin password changed\n');
    return 0;
  }
  process.stderr.write(`unknown command: ${argv.join(' ')}\n\n${usage}`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error) => {
    process.stderr.write(
      error instanceof ConfigError
        ? `searchdeck: ${error.message}\n`
        : `searchdeck: ${error?.stack ?? error}\n`,
    );
    process.exitCode = 1;
  },
);
