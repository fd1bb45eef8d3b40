// Requests sent as raw text, so a test controls every byte of the body (escapes, NUL, huge numbers).
import assert from 'node:assert/strict';
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
