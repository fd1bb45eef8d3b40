// Requests sent as raw text, so a test controls every byte of the body (escapes, NUL, huge numbers).
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
