#!/usr/bin/env node
import { ConfigError, describeSettings, loadConfig } from './config.js';
import { demoCommand } from './demo/demo.js';
import { PasswordsDiffer, PromptCancelled, readNewPassword } from './password-prompt.js';
import { setAdminPassword } from './security/admin-credentials.js';
import { prepareStore, serve } from './server.js';
import { openMigratedStore } from './startup.js';

const settings = describeSettings();
const flagWidth = Math.max(...settings.map((s) => s.flag.length)) + 1;
const envWidth = Math.max(...settings.map((s) => s.env.length)) + 1;

const usage = `searchdeck: the experience layer of a search platform

Usage:
  searchdeck serve [flags]                 run the service
  searchdeck migrate [flags]               apply pending database migrations and exit
  searchdeck admin set-password [flags]    set the admin password: asked twice, hidden, on a
                                           terminal; else the first line of standard input,
                                           or --password
  searchdeck demo --zk <zk> | --solr-url <url> [flags]
                                           fill a running searchdeck with a shop's search on
                                           that Solr (searchdeck demo --help for its flags)
  searchdeck --help                        this text

Flags and environment variables (a flag wins over its variable):
${settings.map((s) => `  ${s.flag.padEnd(flagWidth)} ${s.env.padEnd(envWidth)} default ${s.default}`).join('\n')}
`;

/** `searchdeck admin set-password`: the exit code. */
async function setPassword(args: string[]): Promise<number> {
  const at = args.indexOf('--password');
  const given = at >= 0 ? (args.splice(at, 2)[1] ?? '') : undefined;
  const config = loadConfig(process.env, args);
  let password: string;
  try {
    password = given ?? (await readNewPassword());
  } catch (error) {
    if (error instanceof PromptCancelled) return 130;
    if (!(error instanceof PasswordsDiffer)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 2;
  }
  if (password.length < 8) {
    process.stderr.write('the password must be at least 8 characters long; nothing was changed\n');
    return 2;
  }
  const store = await prepareStore(config, () => {});
  await setAdminPassword(store.db, password);
  await store.close();
  process.stdout.write('admin password changed\n');
  return 0;
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
    const { store, applied } = await openMigratedStore(loadConfig(process.env, rest));
    await store.close();
    process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
    return 0;
  }
  if (command === 'admin' && rest[0] === 'set-password') return setPassword(rest.slice(1));
  if (command === 'demo') {
    return demoCommand(
      rest,
      process.env,
      (line) => process.stdout.write(`${line}\n`),
      (line) => process.stderr.write(`${line}\n`),
    );
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
