// Schema-driven fuzzing of every route of the OpenAPI document: no request, however hostile,
// gets a 5xx; every error has the common body, the request id and the security headers; every
// acknowledged write reads back as it was acknowledged. SEARCHDECK_FUZZ_RUNS raises the count.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { adminAuth, build, engines, skipReason } from '../helpers/app.js';
import {
  type Credentials,
  type Document,
  describeRequest,
  type FuzzRequest,
  jsonText,
  type Operation,
  operationsOf,
  requestFor,
} from '../helpers/fuzz-requests.js';
import { createRule, studioWithToken } from '../rules/api.js';
import { createInstance } from '../typeahead/helpers.js';

// About 6 s per engine here; CI may raise it.
const RUNS = Number(process.env.SEARCHDECK_FUZZ_RUNS ?? 1500);
// Replays a failed run: the seed is in its report.
const SEED =
  process.env.SEARCHDECK_FUZZ_SEED === undefined ? {} : { seed: Number(process.env.SEARCHDECK_FUZZ_SEED) };
const COMMON_FIELDS = ['timestamp', 'status', 'error', 'message', 'path', 'code'];
const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

interface Seeded {
  credentials: Credentials;
  ids: Record<string, string[]>;
}

/** Data for the generated requests to find: a studio with a token and a rule, an instance, a cluster. */
async function seed(app: FastifyInstance): Promise<Seeded> {
  const access = await studioWithToken(app, 'acme');
  const rule = await createRule(app, access, {
    type: 'blockList',
    name: 'r',
    fieldName: 'brand',
    fieldValues: ['x'],
  });
  const rewrite = await app.inject({
    method: 'POST',
    url: '/query-rewrites',
    headers: access.headers,
    payload: { type: 'misspelling', misspelling: 'lapotp', correction: 'laptop' },
  });
  assert.equal(rewrite.statusCode, 201, rewrite.body);
  const instance = await createInstance(app, { id: 'shop' });
  // The ones generated requests may revoke (a client, an embed token), so that the credentials
  // of the run keep working.
  const spare = await app.inject({
    method: 'POST',
    url: '/api/studios/acme/clients',
    headers: { authorization: adminAuth },
    payload: { name: 'spare' },
  });
  await createInstance(app, { id: 'spare' });
  const cluster = await app.inject({
    method: 'POST',
    url: '/api/searchCluster',
    headers: { authorization: adminAuth },
    // Nothing listens on port 1: a connectivity check fails at once instead of waiting.
    payload: { id: 'c1', connectString: '127.0.0.1:1', zkConnectTimeout: 100 },
  });
  assert.equal(cluster.statusCode, 200, cluster.body);
  return {
    credentials: {
      admin: adminAuth,
      bearer: access.headers.authorization,
      embed: `Embed ${instance.embedToken}`,
    },
    ids: {
      studios: ['acme', 'other'],
      em: [rule.id],
      rewrites: [rewrite.json().id],
      instances: [instance.id],
      clusters: ['c1'],
      clients: [spare.json().clientId],
      app: ['shop'],
    },
  };
}

function knownIds(seeded: Seeded) {
  return (parameter: string, path: string): readonly string[] => {
    if (parameter === 'app') return seeded.ids.app!;
    if (parameter === 'studioId') return seeded.ids.studios!;
    if (parameter === 'clientId') return seeded.ids.clients!;
    if (path.includes('/em-rules/')) return seeded.ids.em!;
    if (path.includes('/query-rewrites/')) return seeded.ids.rewrites!;
    if (path.includes('/embed-token') || (path.includes('/typeahead/') && path.endsWith('{id}')))
      return ['spare'];
    if (path.includes('/typeahead/')) return seeded.ids.instances!;
    if (path.includes('/searchCluster/')) return seeded.ids.clusters!;
    if (path.includes('/studios/')) return seeded.ids.studios!;
    return [];
  };
}

/** Deleting the studio of the run's token would leave every later Rules API request a 401. */
function revokesTheRun(request: FuzzRequest): boolean {
  const path = request.url.split('?')[0]!;
  return request.method === 'DELETE' && /^\/api(\/apps\/[^/]+)?\/studios\/acme$/.test(path);
}

/** Keeps connectivity checks fast: a generated host would be waited for up to its timeout. */
function withFastChecks(request: FuzzRequest): FuzzRequest {
  if (
    !request.operation.path.includes('searchCluster') ||
    typeof request.body !== 'object' ||
    request.body === null
  ) {
    return request;
  }
  const body = { ...(request.body as Record<string, unknown>) };
  if (typeof body.connectString === 'string') body.connectString = '127.0.0.1:1';
  if (typeof body.zkConnectTimeout === 'number') body.zkConnectTimeout = 100;
  if (typeof body.zkClientTimeout === 'number') body.zkClientTimeout = 1000;
  return { ...request, body, json: request.json === undefined ? undefined : jsonText(body) };
}

async function send(app: FastifyInstance, request: FuzzRequest) {
  return app.inject({
    method: request.method as 'GET',
    url: request.url,
    headers: request.headers,
    remoteAddress: request.remoteAddress,
    ...(request.json === undefined ? {} : { payload: request.json }),
  });
}

function checkAnswer(request: FuzzRequest, response: Awaited<ReturnType<typeof send>>): void {
  const context = `${describeRequest(request)}\n→ ${response.statusCode} ${response.body.slice(0, 500)}`;
  assert.ok(response.statusCode < 500, `5xx: ${context}`);
  if (response.statusCode < 400) return;
  for (const [name, value] of Object.entries(SECURITY_HEADERS))
    assert.equal(response.headers[name], value, context);
  assert.ok(response.headers['x-request-id'], `no X-Request-Id: ${context}`);
  // The token endpoint answers in OAuth2's own format (RFC 6749 §5.2); HEAD answers have no body.
  if (request.url.startsWith('/oauth2/') || request.method === 'HEAD') return;
  const body = response.json();
  for (const field of COMMON_FIELDS) assert.ok(field in body, `no ${field}: ${context}`);
  assert.equal(body.status, response.statusCode, context);
}

/** Where the resource a write made or changed can be read: the same path, or the new id under it. */
function readBackUrl(request: FuzzRequest, answer: unknown, operations: Operation[]): string | undefined {
  const path = request.url.split('?')[0]!;
  const template = request.operation.path;
  const getOf = (t: string) => operations.some((o) => o.method === 'GET' && o.path === t);
  if ((request.method === 'PUT' || request.method === 'PATCH') && getOf(template)) return path;
  const id = (answer as { id?: unknown } | undefined)?.id;
  if (request.method === 'POST' && typeof id === 'string' && getOf(`${template}/{id}`)) {
    return `${path}/${encodeURIComponent(id)}`;
  }
  return undefined;
}

/** A 2xx write reads back as acknowledged, for every field the request sent. */
async function checkReadBack(
  app: FastifyInstance,
  request: FuzzRequest,
  response: Awaited<ReturnType<typeof send>>,
  operations: Operation[],
): Promise<boolean> {
  if (response.statusCode >= 300 || request.body === null || typeof request.body !== 'object') return false;
  if (Array.isArray(request.body) || !response.body) return false;
  const acknowledged = response.json();
  const url = readBackUrl(request, acknowledged, operations);
  if (url === undefined) return false;
  const read = await app.inject({
    method: 'GET',
    url,
    headers: { authorization: request.headers.authorization! },
  });
  const context = `${describeRequest(request)}\n→ ${response.body.slice(0, 500)}\nGET ${url} → ${read.body.slice(0, 500)}`;
  assert.equal(read.statusCode, 200, context);
  const stored = read.json();
  // A write whose path lists many (PUT /links, now that the schema lets the fuzzer find valid
  // link types) has no one resource there to compare with.
  if (Array.isArray(stored)) return false;
  for (const [field, sent] of Object.entries(request.body)) {
    if (!(field in acknowledged)) continue;
    assert.deepEqual(stored[field], acknowledged[field], `${field} reads back otherwise: ${context}`);
    if (typeof sent === 'string' && !sent.includes('\uFFFD')) {
      assert.ok(
        !JSON.stringify(stored[field]).includes('\\ufffd'),
        `${field} stored with U+FFFD: ${context}`,
      );
    }
  }
  return true;
}

for (const engine of engines) {
  describe(`fuzzing every route on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('answers every generated request below 500, errors in the common body, writes as acknowledged', async (t) => {
      const { app } = await build(t, engine, { tuning: { syncRetryDelaysMs: [1] } });
      const seeded = await seed(app);
      const doc = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json<Document>();
      const operations = operationsOf(doc);
      const requests = fc.oneof(
        ...operations.map((operation) => requestFor(operation, seeded.credentials, knownIds(seeded))),
      );
      const started = Date.now();
      let sent = 0;
      let readBack = 0;
      await fc.assert(
        fc.asyncProperty(requests, async (generated) => {
          const request = withFastChecks(generated);
          if (revokesTheRun(request)) return;
          sent++;
          const response = await send(app, request);
          checkAnswer(request, response);
          if (await checkReadBack(app, request, response, operations)) readBack++;
        }),
        { numRuns: RUNS, endOnFailure: true, includeErrorInReport: true, ...SEED },
      );
      t.diagnostic(
        `${engine}: ${RUNS} runs, ${sent} requests over ${operations.length} operations, ` +
          `${readBack} writes read back, in ${Date.now() - started} ms`,
      );
    });
  });
}
