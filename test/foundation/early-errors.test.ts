import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { describe } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { adminAuth, build, contractTest, engines, skipReason } from '../helpers/app.js';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  /** The server closed the connection after answering. */
  closed: boolean;
}

/**
 * Sends raw bytes over a real socket and reads one answer: `app.inject` would skip Node's
 * HTTP parser, which is what these requests are about.
 */
async function exchange(app: FastifyInstance, bytes: string): Promise<RawAnswer> {
  if (!app.server.listening) await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const text = await new Promise<{ text: string; closed: boolean }>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes, 'latin1'));
    let received = '';
    // A server that keeps the connection open has answered once the whole body is in.
    const complete = () => {
      const [head, body = ''] = received.split('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)/i.exec(head ?? '')?.[1];
      return length !== undefined && Buffer.byteLength(body) >= Number(length);
    };
    const announcesClose = () => /\r\nconnection: close\r\n/i.test(`${received.split('\r\n\r\n')[0]}\r\n`);
    const timer = setTimeout(() => {
      socket.destroy();
      if (complete()) resolve({ text: received, closed: false });
      else reject(new Error(`no complete answer: ${received.slice(0, 200)}`));
    }, 2000);
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
      // A whole answer that keeps the connection open is all there is: waiting for the timer
      // would only cost time. One that announces the close is read on until the close.
      if (complete() && !announcesClose()) {
        clearTimeout(timer);
        resolve({ text: received, closed: false });
        socket.destroy();
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text: received, closed: true });
    });
  });
  const [head = '', body = ''] = text.text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const at = line.indexOf(':');
    headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body), closed: text.closed };
}

function assertCommonAnswer(answer: RawAnswer, status: number, code: string, path: string) {
  assert.equal(answer.status, status);
  assert.equal(answer.body.status, status);
  assert.equal(answer.body.code, code);
  assert.equal(answer.body.path, path);
  assert.equal(typeof answer.body.message, 'string');
  assert.ok(!Number.isNaN(Date.parse(String(answer.body.timestamp))));
  assert.match(answer.headers['content-type'] ?? '', /^application\/json/);
  assert.match(answer.headers['x-request-id'] ?? '', /^[0-9a-f-]{36}$/);
  assert.equal(answer.headers['x-content-type-options'], 'nosniff');
  assert.equal(answer.headers['x-frame-options'], 'DENY');
  assert.equal(answer.headers['referrer-policy'], 'no-referrer');
  assert.match(answer.headers['content-security-policy'] ?? '', /default-src 'none'/);
}

const request = (line: string, headers: string[] = ['Host: localhost'], body = '') =>
  `${line}\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n${body}`;

for (const engine of engines) {
  describe(`answers the server gives before any route (${engine})`, async () => {
    const skip = await skipReason(engine);
    // These are about Node's parser, the router and the body limits: the storage engine plays no part.
    const contract = contractTest(engine);

    contract(
      'answers a path that is not valid percent-encoding with 400 in the common body',
      { skip },
      async (t) => {
        const { app } = await build(t, engine);
        const answer = await exchange(app, request('GET /api/typeahead/instances/%E0%A4%A HTTP/1.1'));
        assertCommonAnswer(answer, 400, 'invalid-parameter', '/api/typeahead/instances/%E0%A4%A');
      },
    );

    contract('lets the route answer a path parameter longer than 100 characters', { skip }, async (t) => {
      const { app } = await build(t, engine);
      const id = 'a'.repeat(500);
      const answer = await exchange(
        app,
        request(`GET /api/typeahead/instances/${id} HTTP/1.1`, [
          'Host: localhost',
          `Authorization: ${adminAuth}`,
        ]),
      );
      assert.notEqual(answer.status, 414);
      assert.ok([400, 404].includes(answer.status), `status ${answer.status}`);
      assertCommonAnswer(answer, answer.status, String(answer.body.code), `/api/typeahead/instances/${id}`);
    });

    contract('accepts an app id of 128 characters in the path', { skip }, async (t) => {
      const { app } = await build(t, engine);
      const response = await app.inject({
        url: `/api/apps/${'a'.repeat(128)}/links`,
        headers: { authorization: adminAuth },
      });
      assert.equal(response.statusCode, 200);
    });

    contract('answers headers over 16 KiB with 431 in the common body and closes', { skip }, async (t) => {
      const { app } = await build(t, engine);
      const answer = await exchange(
        app,
        request('GET /health HTTP/1.1', ['Host: localhost', `X-Big: ${'a'.repeat(17_000)}`]),
      );
      assertCommonAnswer(answer, 431, 'headers-too-large', '/health');
      assert.equal(answer.headers.connection, 'close');
      assert.ok(answer.closed);
    });

    contract('answers a URL over 16 KiB with 431 in the common body', { skip }, async (t) => {
      const { app } = await build(t, engine);
      const answer = await exchange(app, request(`GET /health?q=${'a'.repeat(17_000)} HTTP/1.1`));
      assertCommonAnswer(answer, 431, 'headers-too-large', '/health');
    });

    contract('answers an unknown method with 400 in the common body and closes', { skip }, async (t) => {
      const { app } = await build(t, engine);
      const answer = await exchange(app, request('FOO /health HTTP/1.1'));
      assertCommonAnswer(answer, 400, 'malformed-request', '/health');
      assert.ok(answer.closed);
    });

    contract(
      'answers a Content-Length that is not a number with 400 in the common body',
      { skip },
      async (t) => {
        const { app } = await build(t, engine);
        const answer = await exchange(
          app,
          request('POST /api/links HTTP/1.1', ['Host: localhost', 'Content-Length: abc']),
        );
        assertCommonAnswer(answer, 400, 'malformed-request', '/api/links');
      },
    );

    contract('answers two different Content-Lengths with 400 in the common body', { skip }, async (t) => {
      const { app } = await build(t, engine);
      const answer = await exchange(
        app,
        request(
          'POST /api/links HTTP/1.1',
          ['Host: localhost', 'Content-Length: 5', 'Content-Length: 6'],
          'hello!',
        ),
      );
      assertCommonAnswer(answer, 400, 'malformed-request', '/api/links');
    });

    contract(
      'answers Content-Length together with chunked encoding with 400 in the common body',
      { skip },
      async (t) => {
        const { app } = await build(t, engine);
        const answer = await exchange(
          app,
          request(
            'POST /api/links HTTP/1.1',
            ['Host: localhost', 'Content-Length: 5', 'Transfer-Encoding: chunked'],
            '0\r\n\r\n',
          ),
        );
        assertCommonAnswer(answer, 400, 'malformed-request', '/api/links');
      },
    );

    contract('answers bytes that are not HTTP at all with 400 in the common body', { skip }, async (t) => {
      const { app } = await build(t, engine);
      const answer = await exchange(app, '\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03');
      assertCommonAnswer(answer, 400, 'malformed-request', '');
    });

    contract('answers an HTTP/1.1 request without Host with 400 in the common body', { skip }, async (t) => {
      const { app } = await build(t, engine);
      const answer = await exchange(app, 'GET /health HTTP/1.1\r\n\r\n');
      assertCommonAnswer(answer, 400, 'malformed-request', '/health');
    });

    contract('serves a request whose Expect it does not know as if it had none', { skip }, async (t) => {
      const { app } = await build(t, engine);
      const answer = await exchange(
        app,
        request('GET /api/links HTTP/1.1', [
          'Host: localhost',
          'Expect: something-else',
          `Authorization: ${adminAuth}`,
        ]),
      );
      assert.equal(answer.status, 200);
    });

    contract(
      'answers CONNECT with 405 in the common body instead of closing without a word',
      { skip },
      async (t) => {
        const { app } = await build(t, engine);
        const answer = await exchange(
          app,
          request('CONNECT example.com:443 HTTP/1.1', ['Host: example.com:443']),
        );
        assertCommonAnswer(answer, 405, 'method-not-allowed', '');
      },
    );

    contract(
      'answers a body shorter than its Content-Length with 400 malformed-request',
      { skip },
      async (t) => {
        const { app } = await build(t, engine);
        const response = await app.inject({
          method: 'PUT',
          url: '/api/links',
          headers: { authorization: adminAuth, 'content-type': 'application/json', 'content-length': '50' },
          payload: '{"a":1}',
        });
        assert.equal(response.statusCode, 400);
        assert.equal(response.json().code, 'malformed-request');
        assert.match(String(response.headers['x-request-id']), /./);
      },
    );

    contract('names the endpoint own body limit in a 413', { skip }, async (t) => {
      const { app } = await build(t, engine);
      const links = await app.inject({
        method: 'PUT',
        url: '/api/links',
        headers: { authorization: adminAuth, 'content-type': 'application/json' },
        payload: JSON.stringify({ subject: 'x'.repeat(1024 * 1024 + 10), object: 'b', linkType: 'self' }),
      });
      assert.equal(links.statusCode, 413);
      assert.equal(links.json().message, 'the request body is larger than 1 MiB');
      const logs = await app.inject({
        method: 'POST',
        url: '/api/typeahead/instances/shop/search-logs',
        headers: { authorization: adminAuth, 'content-type': 'application/json' },
        payload: JSON.stringify([{ query: 'x'.repeat(9 * 1024 * 1024) }]),
      });
      assert.equal(logs.statusCode, 413);
      assert.equal(logs.json().code, 'payload-too-large');
      assert.equal(logs.json().message, 'the request body is larger than 8 MiB');
    });
  });
}
