import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { cliCommand, startService } from '../helpers/process.js';

const dirs: string[] = [];
function tempDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'searchdeck-proc-'));
  dirs.push(dir);
  return dir;
}
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const basic = (password: string) => `Basic ${Buffer.from(`admin:${password}`).toString('base64')}`;

// Each test starts processes of its own on a data dir of its own: they run side by side.
describe('the service process', { concurrency: true }, () => {
  test('prints a working generated password once, on the first start only', async () => {
    const dataDir = tempDataDir();
    const env = { SEARCHDECK_DATA_DIR: dataDir, SEARCHDECK_ADMIN_PASSWORD: '' };
    const first = await startService(env);
    const line = first
      .output()
      .split('\n')
      .find((l) => l.includes('password'));
    const password = /: (\S+)$/.exec(line ?? '')?.[1];
    assert.ok(password && password.length >= 20, `a generated password in: ${first.output()}`);
    const ok = await fetch(`${first.url}/api/links`, { headers: { authorization: basic(password) } });
    assert.equal(ok.status, 200);
    assert.equal(await first.stop(), 0);
    assert.equal(statSync(join(dataDir, 'secret.key')).mode & 0o777, 0o600);

    const second = await startService(env);
    assert.doesNotMatch(second.output(), /Generated admin password/);
    const again = await fetch(`${second.url}/api/links`, { headers: { authorization: basic(password) } });
    assert.equal(again.status, 200);
    await second.stop();
  });

  test('keeps every acknowledged write when killed with SIGKILL', async () => {
    const env = { SEARCHDECK_DATA_DIR: tempDataDir(), SEARCHDECK_ADMIN_PASSWORD: 'durable-password' };
    const service = await startService(env);
    const headers = { authorization: basic('durable-password'), 'content-type': 'application/json' };
    const writes = Array.from({ length: 50 }, (_, i) =>
      fetch(`${service.url}/api/links`, {
        method: 'PUT',
        headers,
        body: JSON.stringify({ subject: `s${i}`, object: 'o', linkType: 'dependsOn' }),
      }),
    );
    const answers = await Promise.all(writes);
    assert.ok(answers.every((r) => r.status === 200));
    await service.stop('SIGKILL');

    const restarted = await startService(env);
    const list = await fetch(`${restarted.url}/api/links?object=o`, { headers });
    assert.equal(((await list.json()) as unknown[]).length, 50);
    await restarted.stop();
  });

  test('stops the start with a message naming a bad variable', () => {
    const result = spawnSync(process.execPath, [...cliCommand(), 'serve'], {
      env: { ...process.env, SEARCHDECK_PORT: 'not-a-port', SEARCHDECK_DATA_DIR: tempDataDir() },
      encoding: 'utf8',
    });
    assert.equal(result.status, 1);
    assert.match(result.stderr, /SEARCHDECK_PORT/);
    assert.doesNotMatch(result.stderr, /\n\s+at /);
  });

  test('changes the admin password with admin set-password', async () => {
    const dataDir = tempDataDir();
    const env = { ...process.env, SEARCHDECK_DATA_DIR: dataDir, SEARCHDECK_ADMIN_PASSWORD: '' };
    const set = spawnSync(process.execPath, [...cliCommand(), 'admin', 'set-password'], {
      env,
      input: 'brand-new-password\n',
      encoding: 'utf8',
    });
    assert.equal(set.status, 0, set.stderr);
    const service = await startService({ SEARCHDECK_DATA_DIR: dataDir, SEARCHDECK_ADMIN_PASSWORD: '' });
    const ok = await fetch(`${service.url}/api/links`, {
      headers: { authorization: basic('brand-new-password') },
    });
    assert.equal(ok.status, 200);
    await service.stop();
  });
});
