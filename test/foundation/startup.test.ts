import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { skipReason } from '../helpers/app.js';
import { testDatabaseUrl } from '../helpers/postgres.js';
import { type CliResult, runCli } from '../helpers/process.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'searchdeck-start-'));
  dirs.push(dir);
  return dir;
}
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const ADMIN_SECRET = 'admin-secret-never-printed';
const URL_SECRET = 'url-secret-never-printed';
const SECRET_KEY = Buffer.alloc(32, 5).toString('base64');

/** `searchdeck serve` with the environment; a fresh data dir unless one is given. */
function serve(env: Record<string, string>): Promise<CliResult> {
  return runCli(['serve'], {
    SEARCHDECK_PORT: '0',
    SEARCHDECK_DATA_DIR: tempDir(),
    SEARCHDECK_ADMIN_PASSWORD: ADMIN_SECRET,
    SEARCHDECK_DATABASE_URL: '',
    SEARCHDECK_SECRET_KEY: '',
    ...env,
  });
}

/** The start failed with exit code 1 and exactly one line naming `setting`, and nothing else. */
function assertOneLine(result: CliResult, setting: string, says: RegExp): void {
  assert.equal(result.status, 1, `exit code; stderr: ${result.stderr}`);
  assert.equal(result.stdout, '', 'nothing on standard output: no password, no listening line');
  const lines = result.stderr.split('\n').filter((line) => line !== '');
  assert.equal(lines.length, 1, `one line, got:\n${result.stderr}`);
  assert.ok(lines[0]!.startsWith(`searchdeck: ${setting} (--`), lines[0]);
  assert.match(lines[0]!, says);
  for (const secret of [ADMIN_SECRET, URL_SECRET, SECRET_KEY]) assert.ok(!result.stderr.includes(secret));
}

function listening(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
}

// Each start is a process of its own on a data dir of its own: they run side by side.
describe('a start the machine refuses', { concurrency: true }, () => {
  test('names SEARCHDECK_PORT when the port is in use, before any password', async () => {
    const holder = createServer();
    const port = await listening(holder);
    try {
      const result = await serve({ SEARCHDECK_PORT: String(port), SEARCHDECK_ADMIN_PASSWORD: '' });
      assertOneLine(result, 'SEARCHDECK_PORT', new RegExp(`127\\.0\\.0\\.1:${port} is already in use`));
    } finally {
      holder.close();
    }
  });

  test('names SEARCHDECK_HOST when the host is no address of this machine', async () => {
    // 192.0.2.1 is TEST-NET-1, never assigned to a machine.
    assertOneLine(
      await serve({ SEARCHDECK_HOST: '192.0.2.1' }),
      'SEARCHDECK_HOST',
      /no address of this machine/,
    );
  });

  test('names SEARCHDECK_DATA_DIR when it is a file', async () => {
    const file = join(tempDir(), 'a-file');
    writeFileSync(file, 'x');
    assertOneLine(await serve({ SEARCHDECK_DATA_DIR: file }), 'SEARCHDECK_DATA_DIR', /is not a directory/);
    const below = join(file, 'data');
    assertOneLine(
      await serve({ SEARCHDECK_DATA_DIR: below }),
      'SEARCHDECK_DATA_DIR',
      /cannot be created: .*a-file is not a directory/,
    );
  });

  test('names SEARCHDECK_DATA_DIR when it cannot be created, instead of spinning', {
    skip: existsSync('/proc/self') ? false : 'needs procfs (Linux)',
  }, async () => {
    // procfs answers ENOENT for a new child of an existing directory, which sent Node's
    // recursive mkdir into an endless loop: the start printed nothing and spun.
    const started = Date.now();
    const result = await serve({ SEARCHDECK_DATA_DIR: '/proc/searchdeck-nope/data' });
    assertOneLine(result, 'SEARCHDECK_DATA_DIR', /cannot be created \(ENOENT/);
    assert.ok(Date.now() - started < 30_000);
  });

  test('names SEARCHDECK_DATA_DIR when it is not writable', {
    skip: existsSync('/proc/self') ? false : 'needs procfs (Linux)',
  }, async () => {
    // A directory even root cannot write in (a chmod would not stop root).
    assertOneLine(await serve({ SEARCHDECK_DATA_DIR: '/proc' }), 'SEARCHDECK_DATA_DIR', /is not writable/);
  });

  test('names SEARCHDECK_DATA_DIR when its database file is not a database', async () => {
    const dataDir = tempDir();
    writeFileSync(
      join(dataDir, 'searchdeck.db'),
      'not a database at all, but long enough to be read '.repeat(40),
    );
    assertOneLine(
      await serve({ SEARCHDECK_DATA_DIR: dataDir }),
      'SEARCHDECK_DATA_DIR',
      /searchdeck\.db is not a readable SQLite database/,
    );
  });

  test('names SEARCHDECK_DATABASE_URL when PostgreSQL refuses connections, without the URL password', async () => {
    const closed = createServer();
    const port = await listening(closed);
    await new Promise((resolve) => closed.close(resolve));
    const result = await serve({
      SEARCHDECK_DATABASE_URL: `postgres://searchdeck:${URL_SECRET}@127.0.0.1:${port}/test`,
      SEARCHDECK_SECRET_KEY: SECRET_KEY,
      SEARCHDECK_ADMIN_PASSWORD: '',
    });
    assertOneLine(
      result,
      'SEARCHDECK_DATABASE_URL',
      new RegExp(`127\\.0\\.0\\.1:${port} refuses connections`),
    );
  });

  test('names SEARCHDECK_DATABASE_URL when its host cannot be resolved, printing no password', async () => {
    const result = await serve({
      SEARCHDECK_DATABASE_URL: `postgres://searchdeck:${URL_SECRET}@no-such-host.invalid:5432/test`,
      SEARCHDECK_SECRET_KEY: SECRET_KEY,
    });
    assertOneLine(result, 'SEARCHDECK_DATABASE_URL', /"no-such-host\.invalid" cannot be resolved/);
  });

  test('names SEARCHDECK_DATABASE_URL when the database does not exist', async (t) => {
    const skip = await skipReason('postgres');
    if (skip) return t.skip(skip);
    const url = new URL(testDatabaseUrl);
    url.pathname = '/searchdeck_no_such_database';
    const result = await serve({ SEARCHDECK_DATABASE_URL: url.href, SEARCHDECK_SECRET_KEY: SECRET_KEY });
    assertOneLine(
      result,
      'SEARCHDECK_DATABASE_URL',
      /the database "searchdeck_no_such_database" does not exist .*createdb searchdeck_no_such_database/,
    );
  });

  test('names SEARCHDECK_DATABASE_URL when PostgreSQL does not accept the user', async (t) => {
    const skip = await skipReason('postgres');
    if (skip) return t.skip(skip);
    const url = new URL(testDatabaseUrl);
    url.username = 'searchdeck_no_such_role';
    url.password = URL_SECRET;
    const result = await serve({ SEARCHDECK_DATABASE_URL: url.href, SEARCHDECK_SECRET_KEY: SECRET_KEY });
    assertOneLine(result, 'SEARCHDECK_DATABASE_URL', /does not accept the user "searchdeck_no_such_role"/);
  });

  test('names the setting in migrate and admin set-password too', async () => {
    const migrate = await runCli(['migrate'], { SEARCHDECK_DATA_DIR: '/proc/searchdeck-nope' });
    assertOneLine(migrate, 'SEARCHDECK_DATA_DIR', /cannot be created/);
    const setPassword = await runCli(
      ['admin', 'set-password'],
      {
        SEARCHDECK_DATA_DIR: join(tempDir(), 'a', 'b'),
        SEARCHDECK_DATABASE_URL: 'postgres://x@127.0.0.1:1/x',
      },
      'a-long-enough-password\n',
    );
    assertOneLine(setPassword, 'SEARCHDECK_DATABASE_URL', /127\.0\.0\.1:1 refuses connections/);
  });
});
