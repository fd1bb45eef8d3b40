import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import { openStore, type StoreOptions } from '../../src/storage/database.js';
import { UserVerifier } from '../../src/users/verifier.js';
import { skipReason } from '../helpers/app.js';
import { testDatabaseUrl } from '../helpers/postgres.js';
import { cliCommand, runCli } from '../helpers/process.js';

const dirs: string[] = [];
function tempDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'searchdeck-password-'));
  dirs.push(dir);
  return dir;
}
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function isAdminPassword(options: StoreOptions, password: string): Promise<boolean> {
  const store = openStore(options);
  try {
    return (await new UserVerifier(store.db).verify('admin', password)) !== undefined;
  } finally {
    await store.close();
  }
}

// util-linux's script(1) runs the command on a pseudo-terminal: what the terminal shows
// (its echo included) comes out on script's standard output.
const scriptMissing =
  process.platform !== 'linux' || spawnSync('script', ['--version']).status !== 0
    ? 'needs script(1) from util-linux'
    : false;

/** Runs set-password on a pseudo-terminal, typing each answer once its (distinct) prompt shows. */
function setPasswordOnTerminal(
  dataDir: string,
  answers: Array<{ after: string; type: string }>,
): Promise<{ status: number | null; screen: string }> {
  const command = [process.execPath, ...cliCommand(), 'admin', 'set-password']
    .map((word) => `'${word}'`)
    .join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    env: { ...process.env, SEARCHDECK_DATA_DIR: dataDir, SEARCHDECK_ADMIN_PASSWORD: '' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  let next = 0;
  const onData = (chunk: Buffer) => {
    screen += chunk.toString();
    const answer = answers[next];
    // Typed only once the prompt is there, as a person would: the terminal is in raw mode
    // (no echo) by then, so what the screen shows is the program's doing.
    if (answer && screen.includes(answer.after)) {
      next++;
      child.stdin.write(`${answer.type}\r`);
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  return new Promise((resolve) => child.once('close', (status) => resolve({ status, screen })));
}

describe('admin set-password on a terminal', { skip: scriptMissing }, () => {
  test('asks twice without showing what is typed, and changes the password', async () => {
    const dataDir = tempDataDir();
    const { status, screen } = await setPasswordOnTerminal(dataDir, [
      { after: 'New admin password: ', type: 'typed-on-a-terminal' },
      { after: 'Repeat it: ', type: 'typed-on-a-terminal' },
    ]);
    assert.equal(status, 0, screen);
    assert.match(screen, /New admin password: .*Repeat it: .*admin password changed/s);
    assert.ok(!screen.includes('typed-on-a-terminal'), `the password was shown:\n${screen}`);
    assert.ok(await isAdminPassword({ dataDir }, 'typed-on-a-terminal'));
  });

  test('changes nothing when the two passwords differ', async () => {
    const dataDir = tempDataDir();
    const { status, screen } = await setPasswordOnTerminal(dataDir, [
      { after: 'New admin password: ', type: 'first-password' },
      { after: 'Repeat it: ', type: 'second-password' },
    ]);
    assert.equal(status, 2, screen);
    assert.match(screen, /the two passwords differ; nothing was changed/);
    assert.ok(!screen.includes('first-password') && !screen.includes('second-password'));
    assert.equal(existsSync(join(dataDir, 'searchdeck.db')), false, 'the database was not even opened');
  });
});

describe('admin set-password from a pipe', () => {
  test('takes the first line of standard input, on SQLite', async () => {
    const dataDir = tempDataDir();
    const result = await runCli(
      ['admin', 'set-password'],
      { SEARCHDECK_DATA_DIR: dataDir, SEARCHDECK_ADMIN_PASSWORD: '' },
      'piped-password\n',
    );
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, 'admin password changed\n', 'no prompt when the input is no terminal');
    assert.ok(await isAdminPassword({ dataDir }, 'piped-password'));
  });

  test('takes the first line of standard input, on PostgreSQL', async (t) => {
    const skip = await skipReason('postgres');
    if (skip) return t.skip(skip);
    // A database of its own: the command works in the database's default schema.
    const name = `searchdeck_pw_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: testDatabaseUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    t.after(async () => {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    });
    const url = new URL(testDatabaseUrl);
    url.pathname = `/${name}`;
    const result = await runCli(
      ['admin', 'set-password'],
      { SEARCHDECK_DATABASE_URL: url.href, SEARCHDECK_ADMIN_PASSWORD: '' },
      'piped-password-pg\n',
    );
    assert.equal(result.status, 0, result.stderr);
    assert.ok(await isAdminPassword({ dataDir: '', databaseUrl: url.href }, 'piped-password-pg'));
    assert.equal(await isAdminPassword({ dataDir: '', databaseUrl: url.href }, 'something-else'), false);
  });

  test('refuses a password shorter than 8 characters and changes nothing', async () => {
    const dataDir = tempDataDir();
    const result = await runCli(['admin', 'set-password'], { SEARCHDECK_DATA_DIR: dataDir }, 'short\n');
    assert.equal(result.status, 2);
    assert.match(result.stderr, /at least 8 characters/);
  });
});
