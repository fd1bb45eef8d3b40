// Requests sent as raw text, so a test controls every byte of the body (escapes, NUL, huge numbers).
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { adminAuth } from './app.js';

export interface RawAnswer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: answers of every route are read field by field
  body: any;
}

/** Sends `json` as the body text (admin credentials unless `headers` replace them). */
export async function sendRaw(
  app: FastifyInstance,
  method: string,
  url: string,
  options: { json?: string; headers?: Record<string, string>; contentType?: string } = {},
): Promise<RawAnswer> {
  const response = await app.inject({
    method: method as 'GET',
    url,
    headers: {
      authorization: adminAuth,
      ...options.headers,
      ...(options.json === undefined ? {} : { 'content-type': options.contentType ?? 'application/json' }),
    },
    ...(options.json === undefined ? {} : { payload: options.json }),
  });
  return { status: response.statusCode, body: response.body ? response.json() : undefined };
}

/** Asserts that no search was counted for the instance: after a refresh, nothing is top-searched. */
export async function assertNoSearchCounted(app: FastifyInstance, instanceId: string): Promise<void> {
  const api = `/api/typeahead/instances/${instanceId}`;
  assert.equal((await sendRaw(app, 'POST', `${api}/refresh`)).status, 200);
  assert.deepEqual((await sendRaw(app, 'GET', `${api}/terms`)).body.topSearched, []);
}

/**
 * The whole answer as bytes on the wire, less what changes with the clock (Date, an error's
 * timestamp). `Host` is localhost unless `headers` name another.
 */
export function wireGet(port: number, target: string, headers: Record<string, string>): Promise<string> {
  const head = [
    `GET ${target} HTTP/1.1`,
    ...Object.entries({ host: 'localhost', ...headers }).map(([k, v]) => `${k}: ${v}`),
  ];
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () =>
      socket.write(`${head.join('\r\n')}\r\nConnection: close\r\n\r\n`),
    );
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () =>
      resolve(
        Buffer.concat(chunks)
          .toString('utf8')
          .replace(/^Date: .*\r\n/im, '')
          .replace(/"timestamp":"[^"]*"/, '"timestamp":"…"'),
      ),
    );
  });
}
