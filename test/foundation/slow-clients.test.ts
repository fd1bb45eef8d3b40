// Clients that hold connections: a body that trickles in is cut off at the request timeout,
// and one address cannot open more connections than the cap. Real sockets, since app.inject
// has no connection; the settings are set short so that the tests take well under a second.
import assert from 'node:assert/strict';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { adminAuth, build } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';
import { captureLog } from '../helpers/log-capture.js';

const REQUEST_TIMEOUT_MS = 300;

async function portOf(app: FastifyInstance): Promise<number> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return (app.server.address() as AddressInfo).port;
}

/** Everything the server sent on `socket` until it closed it, or a failure after `withinMs`. */
function closedWith(socket: Socket, withinMs: number): Promise<string> {
  let text = '';
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the connection was still open after ${withinMs} ms; received: ${text}`));
    }, withinMs);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(text);
    });
    socket.on('error', () => {});
  });
}

interface Opened {
  socket: Socket;
  /** The answer to a GET /health, or '' when the server closed the connection without one. */
  answer: string;
}

/** Opens a connection from `localAddress` and asks GET /health on it, keeping it open once answered. */
function openAndAsk(port: number, localAddress: string): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress }, () =>
      socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n'),
    );
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const [head = '', body] = text.split('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)/i.exec(head)?.[1];
      if (body !== undefined && length !== undefined && Buffer.byteLength(body) >= Number(length)) {
        resolve({ socket, answer: text });
      }
    });
    socket.once('close', () => resolve({ socket, answer: text }));
    socket.once('error', (error: NodeJS.ErrnoException) => {
      // A connection closed at once may be seen as a reset when the request was already on its way.
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') resolve({ socket, answer: text });
      else reject(error);
    });
  });
}

describe('slow request bodies', () => {
  for (const path of ['/api/session', '/oauth2/token']) {
    test(`a body of POST ${path} that trickles in is answered 408 in the common body at the request timeout`, async (t) => {
      const log = captureLog('info');
      const { app } = await build(t, 'sqlite', {
        env: { SEARCHDECK_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) },
        logger: log.logger,
      });
      const port = await portOf(app);
      const socket = connect(port, '127.0.0.1');
      const started = performance.now();
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`,
      );
      // One byte every 50 ms: never idle long, but far too slow to finish in time.
      const trickle = setInterval(() => socket.writable && socket.write(' '), 50);
      t.after(() => clearInterval(trickle));
      const text = await closedWith(socket, 5000);
      const elapsed = performance.now() - started;
      clearInterval(trickle);
      assert.match(text, /^HTTP\/1\.1 408 /);
      assert.match(text, /\r\nconnection: close\r\n/i);
      assert.match(text, /\r\nx-request-id: [0-9a-f-]{36}\r\n/i);
      const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
      assert.equal(body.code, 'request-timeout');
      assert.equal(body.status, 408);
      assert.equal(body.path, path);
      assert.ok(elapsed >= REQUEST_TIMEOUT_MS - 20, `answered after ${elapsed} ms, before the timeout`);
      // Node looks for late requests every quarter of the timeout here; the rest is a busy machine's margin.
      assert.ok(elapsed < REQUEST_TIMEOUT_MS + 1500, `answered only after ${elapsed} ms`);
      // The route's end of the cut-off request is logged as what it is, not as a failure.
      const levels = () => log.lines.map((line) => JSON.parse(line) as { level: number; msg: string });
      await eventually(() => assert.ok(levels().some((line) => /request abandoned/.test(line.msg))));
      assert.deepEqual(
        levels().filter((line) => line.level >= 50),
        [],
      );
    });
  }

  test('a body that arrives within the request timeout is served', async (t) => {
    const { app } = await build(t, 'sqlite', {
      env: { SEARCHDECK_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) },
    });
    const port = await portOf(app);
    const answer = await fetch(`http://127.0.0.1:${port}/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'not the password' }),
    });
    assert.equal(answer.status, 401);
  });
});

describe('connections per client address', () => {
  test('an address past the cap is refused while another address and a trusted proxy are served', async (t) => {
    const { app } = await build(t, 'sqlite', {
      env: { SEARCHDECK_MAX_CONNECTIONS_PER_ADDRESS: '2', SEARCHDECK_TRUST_PROXY: '127.0.0.3' },
    });
    const port = await portOf(app);
    const opened: Socket[] = [];
    t.after(() => {
      for (const socket of opened) socket.destroy();
    });
    const ask = async (from: string) => {
      const one = await openAndAsk(port, from);
      opened.push(one.socket);
      return one.answer;
    };

    assert.match(await ask('127.0.0.1'), /^HTTP\/1\.1 200 /);
    assert.match(await ask('127.0.0.1'), /^HTTP\/1\.1 200 /);
    assert.equal(await ask('127.0.0.1'), '', 'the third connection from one address is closed unanswered');
    assert.match(await ask('127.0.0.2'), /^HTTP\/1\.1 200 /, 'another address is served');
    for (let i = 0; i < 3; i++) assert.match(await ask('127.0.0.3'), /^HTTP\/1\.1 200 /, 'a trusted proxy');

    // Once one of its connections closed, the address may open another.
    opened[0]!.destroy();
    await eventually(async () => assert.match(await ask('127.0.0.1'), /^HTTP\/1\.1 200 /), { within: 5000 });

    const metrics = await app.inject({ url: '/metrics', headers: { authorization: adminAuth } });
    assert.equal(metrics.statusCode, 200, metrics.body);
    assert.match(metrics.body, /^searchdeck_http_connections_refused_total [1-9]/m);
  });
});
