// Helpers of the Rules API tests: a studio with a client and its token.
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { adminAuth } from '../helpers/app.js';

export interface StudioAccess {
  studioId: string;
  clientId: string;
  clientSecret: string;
  token: string;
  /** Headers for the Rules API. */
  headers: { authorization: string };
}

/** Creates a studio and a client with the given scopes, and gets a token for it. */
export async function studioWithToken(
  app: FastifyInstance,
  studioId: string,
  scopes?: string[],
): Promise<StudioAccess> {
  const created = await app.inject({
    method: 'POST',
    url: '/api/studios',
    headers: { authorization: adminAuth },
    payload: { id: studioId, name: `Studio ${studioId}` },
  });
  assert.equal(created.statusCode, 201, created.body);
  const client = await app.inject({
    method: 'POST',
    url: `/api/studios/${studioId}/clients`,
    headers: { authorization: adminAuth },
    payload: { name: 'ci', ...(scopes ? { scopes } : {}) },
  });
  assert.equal(client.statusCode, 201, client.body);
  const { clientId, clientSecret } = client.json<{ clientId: string; clientSecret: string }>();
  const token = await tokenFor(app, clientId, clientSecret);
  return { studioId, clientId, clientSecret, token, headers: { authorization: `Bearer ${token}` } };
}

export async function tokenFor(
  app: FastifyInstance,
  clientId: string,
  clientSecret: string,
): Promise<string> {
  const response = await app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
    },
    payload: 'grant_type=client_credentials',
  });
  assert.equal(response.statusCode, 200, response.body);
  return response.json<{ access_token: string }>().access_token;
}

/** What rules and rewrites both answer: the publish state and the live content. */
export interface PublishableJson {
  id: string;
  type: string;
  publishState: string;
  published: boolean;
  markedForDeletion: boolean;
  deleted: boolean;
  lastModified: string;
  liveContent: Record<string, unknown> | null;
  [key: string]: unknown;
}

export interface RuleJson extends PublishableJson {
  name: string;
}

/** Creates a rule through the API and answers it. */
export async function createRule(
  app: FastifyInstance,
  access: StudioAccess,
  body: Record<string, unknown>,
): Promise<RuleJson> {
  const response = await app.inject({
    method: 'POST',
    url: '/em-rules',
    headers: access.headers,
    payload: body,
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<RuleJson>();
}

/** Creates a rule through the API, publishes it and answers it. */
export async function publishedRule(
  app: FastifyInstance,
  access: StudioAccess,
  body: Record<string, unknown>,
): Promise<RuleJson> {
  const rule = await createRule(app, access, body);
  const response = await app.inject({
    method: 'POST',
    url: `/em-rules/${rule.id}/publish`,
    headers: access.headers,
  });
  assert.equal(response.statusCode, 200, response.body);
  return rule;
}
