// Helpers of the Query Rewrites API tests.
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import type { PublishableJson, StudioAccess } from '../rules/api.js';

export { studioWithToken } from '../rules/api.js';

export const REWRITES_ONLY = ['commercestudio.rewrites'];

export interface RewriteJson extends PublishableJson {
  createdBy: string;
  lastModifiedBy: string;
}

/** Answers a request of the API, asserting its status. */
export async function call(
  app: FastifyInstance,
  access: StudioAccess,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  payload?: unknown,
  status = 200,
) {
  const response = await app.inject({
    method,
    url,
    headers: access.headers,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  assert.equal(response.statusCode, status, `${method} ${url}: ${response.body}`);
  return response;
}

export async function createRewrite(
  app: FastifyInstance,
  access: StudioAccess,
  body: Record<string, unknown>,
): Promise<RewriteJson> {
  return (await call(app, access, 'POST', '/query-rewrites', body, 201)).json<RewriteJson>();
}

export async function publish(app: FastifyInstance, access: StudioAccess, id: string, status = 200) {
  return call(app, access, 'POST', `/query-rewrites/${id}/publish`, undefined, status);
}
