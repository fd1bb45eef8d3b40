import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { build, contractTest, engines, skipReason } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';
import { ensureBuilt, npmStart } from '../helpers/process.js';

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Started {
  npm: ChildProcess;
  url: string;
  /** The pid of the node process serving (npm's child). */
  serverPid: number;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `npm start` on a free port; resolves once the server logged that it listens. */
async function startThroughNpm(): Promise<Started> {
  const dataDir = mkdtempSync(join(tmpdir(), 'searchdeck-npm-'));
  dirs.push(dataDir);
  const npm = npmStart({ SEARCHDECK_DATA_DIR: dataDir, SEARCHDECK_ADMIN_PASSWORD: 'npm-start-password' }, [
    '--port',
    '0',
  ]);
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    npm.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const started = await new Promise<{ url: string; serverPid: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not start:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      // pino's line carries the server's pid; both lines are printed once it listens.
      const line = /"pid":(\d+)[^\n]*"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/.exec(output);
      if (line) {
        clearTimeout(timer);
        resolve({ serverPid: Number(line[1]), url: line[2]! });
      }
    };
    npm.stdout!.on('data', onData);
    npm.stderr!.on('data', onData);
    exited.then(() => reject(new Error(`npm start exited:\n${output}`)));
  });
  return { npm, ...started, output: () => output, exited };
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function refused(url: string): Promise<boolean> {
  try {
    await fetch(`${url}/health`);
    return false;
  } catch (error) {
    return (error as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED';
  }
}

describe('npm start', () => {
  before(() => ensureBuilt());

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    test(`stops the server, gracefully, on ${signal} sent to npm's process`, async () => {
      const started = await startThroughNpm();
      try {
        assert.equal((await fetch(`${started.url}/health`)).status, 200);
        assert.notEqual(started.serverPid, started.npm.pid, 'the server is a process of its own');
        started.npm.kill(signal);
        const { code } = await started.exited;
        assert.equal(code, 0, started.output());
        // npm waits for its script to end, so the server is gone by now.
        assert.equal(isRunning(started.serverPid), false, 'no server process remains');
        assert.ok(await refused(started.url), 'the port is closed');
        assert.match(started.output(), new RegExp(`"signal":"${signal}","msg":"shutting down`));
      } finally {
        if (isRunning(started.serverPid)) process.kill(started.serverPid, 'SIGKILL');
      }
    });
  }
});

/** Everything the server sends on `socket` until it closes it. */
function readAll(socket: ReturnType<typeof connect>): Promise<string> {
  let text = '';
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    socket.once('close', () => resolve(text));
    socket.once('error', reject);
  });
}

for (const engine of engines) {
  describe(`shutting down (${engine})`, () => {
    const contract = contractTest(engine);
    contract(
      'answers 503 in the common body a request still under way when the grace period runs out',
      async (t) => {
        const { app } = await build(t, engine);
        let entered: () => void = () => {};
        const inHandler = new Promise<void>((resolve) => {
          entered = resolve;
        });
        // A handler that waits on nothing the stop can abort, and never ends by itself.
        app.get('/test/stuck', async () => {
          entered();
          await new Promise(() => {});
        });
        const url = await app.listen({ host: '127.0.0.1', port: 0 });
        const socket = connect(Number(new URL(url).port), '127.0.0.1');
        const answers = readAll(socket);
        socket.write('GET /test/stuck?x=1 HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: stuck-1\r\n\r\n');
        await inHandler;
        const closing = app.close();
        app.parts.shutdown.cutShort(10);
        const text = await answers;
        assert.match(text, /^HTTP\/1\.1 503 /);
        assert.match(text, /\r\nconnection: close\r\n/i);
        assert.match(text, /\r\nx-request-id: stuck-1\r\n/i);
        assert.match(text, /\r\nx-content-type-options: nosniff\r\n/i);
        const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
        assert.equal(body.code, 'not-ready');
        assert.equal(body.status, 503);
        assert.equal(body.path, '/test/stuck');
        assert.equal(body.requestId, 'stuck-1');
        await closing;
      },
    );

    test('finishes requests under way, answers new ones 503 in the common body, refuses new connections', async (t) => {
      const skip = await skipReason(engine);
      if (skip) return t.skip(skip);
      const { app } = await build(t, engine);
      let entered: () => void = () => {};
      const inHandler = new Promise<void>((resolve) => {
        entered = resolve;
      });
      let release: () => void = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      app.get('/test/slow', async () => {
        entered();
        await released;
        return { finished: true };
      });
      const url = await app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = new URL(url);

      const socket = connect(Number(port), '127.0.0.1');
      const answers = readAll(socket);
      socket.write('GET /test/slow HTTP/1.1\r\nHost: localhost\r\n\r\n');
      await inHandler;
      const closing = app.close();
      // The next request on the open connection arrives while the app is closing.
      socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: during-shutdown\r\n\r\n');
      await eventually(
        async () => assert.ok(await refused(url), 'a new connection is refused once the shutdown started'),
        { within: 2000 },
      );
      release();

      const [first, second] = (await answers).split(/(?=HTTP\/1\.1 )/);
      assert.match(first!, /^HTTP\/1\.1 200 /);
      assert.match(first!, /\{"finished":true\}$/);
      assert.match(second!, /^HTTP\/1\.1 503 /);
      assert.match(second!, /\r\nconnection: close\r\n/i);
      assert.match(second!, /\r\nx-request-id: during-shutdown\r\n/i);
      assert.match(second!, /\r\nx-content-type-options: nosniff\r\n/i);
      const body = JSON.parse(second!.slice(second!.indexOf('\r\n\r\n') + 4));
      assert.equal(body.status, 503);
      assert.equal(body.code, 'not-ready');
      assert.equal(body.path, '/health');
      await closing;
    });
  });
}
