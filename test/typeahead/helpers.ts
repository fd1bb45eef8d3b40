import type { FastifyInstance } from 'fastify';
import { adminAuth } from '../helpers/app.js';

/** Admin request through the real app; answers status, body and headers. */
export async function admin(app: FastifyInstance, method: string, url: string, payload?: unknown) {
  const response = await app.inject({
    method: method as 'GET',
    url: `/api/typeahead${url}`,
    headers: { authorization: adminAuth },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  return {
    status: response.statusCode,
    body: response.body ? response.json() : undefined,
    headers: response.headers,
  };
}

/** Creates an instance and answers its id and embed token. */
export async function createInstance(app: FastifyInstance, body: Record<string, unknown> = {}) {
  const created = await admin(app, 'POST', '/instances', { name: 'Shop', ...body });
  if (created.status !== 201) throw new Error(`create failed: ${JSON.stringify(created.body)}`);
  return created.body as { id: string; embedToken: string };
}

/** The public suggestions endpoint with an embed token. */
export async function suggest(
  app: FastifyInstance,
  token: string | undefined,
  query = '',
  headers: Record<string, string> = {},
) {
  const response = await app.inject({
    method: 'GET',
    url: `/typeahead/suggestions${query ? `?${query}` : ''}`,
    headers: { ...(token === undefined ? {} : { authorization: `Embed ${token}` }), ...headers },
  });
  return {
    status: response.statusCode,
    body: response.body ? response.json() : undefined,
    headers: response.headers,
  };
}
