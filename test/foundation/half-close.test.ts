// A client that half-closes its connection after sending its request still gets the answer.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import { adminAuth, build, engines, skipReason } from '../helpers/app.js';

/** Sends `request` on a new connection, ends the sending side, and answers all it reads. */
function halfClosed(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, allowHalfOpen: true });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.end(request);
  });
}

for (const engine of engines) {
  describe(`half-closed connections on ${engine}`, async () => {
    const skip = await skipReason(engine);

    test('answer a request whose route waits on the database', { skip }, async (t) => {
      const { app } = await build(t, engine);
      await app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = app.server.address() as AddressInfo;
      const created = await halfClosed(
        port,
        `POST /api/studios HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${adminAuth}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 26\r\n\r\n{"id":"shop","name":"S1"}\n',
      );
      assert.match(created, /^HTTP\/1\.1 20[01] /, created);
      const listed = await halfClosed(
        port,
        `GET /api/studios HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${adminAuth}\r\n\r\n`,
      );
      assert.match(listed, /^HTTP\/1\.1 200 /, listed);
      assert.match(listed, /"shop"/);
      // Bad input on such a connection still gets its 4xx in the common body.
      const refused = await halfClosed(port, 'GET /api/studios HTTP/1.1\r\nHost: localhost\r\n\r\n');
      assert.match(refused, /^HTTP\/1\.1 401 /, refused);
      assert.match(refused, /"status":401/);
    });
  });
}
