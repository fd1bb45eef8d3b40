// Every route's 2xx answer matches the response schema the OpenAPI document gives it: one
// sample request per route, on data seeded through the API. A schema that says less or
// otherwise than the handler answers would mislead clients and the serializer alike.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Ajv, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { ADMIN_PASSWORD, adminAuth, build, engines, skipReason } from '../helpers/app.js';
import { createRule, type StudioAccess, tokenFor } from '../rules/api.js';
import { createInstance } from '../typeahead/helpers.js';

type Schema = Record<string, unknown>;

interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}

interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

interface Seeded {
  access: StudioAccess;
  embed: string;
  clusterId: string;
  bulkOperationId: string;
}

const RULE = { type: 'blockList', name: 'r', fieldName: 'brand', fieldValues: ['x'] };
const REWRITE = { type: 'misspelling', misspelling: 'lapotp', correction: 'laptop' };
// Nothing listens on port 1: no check is run here, and one that were would fail at once.
const CLUSTER = { connectString: '127.0.0.1:1', zkConnectTimeout: 100 };
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
// Their 2xx answer needs a live Solr cluster; the cluster tests cover them with one.
const NEEDS_A_CLUSTER = [
  '/searchCluster/{id}/status',
  '/searchCluster/{id}/nodes',
  '/searchCluster/{id}/systemInfo',
  '/searchCluster/{id}/collections',
  // Answered by a Solr node (test/query covers it).
  '/query/{profile}',
];
const PROFILE = { searchCluster: 'c1', collection: 'products' };
const EXPERIMENT = {
  variants: [
    { id: 'a', weight: 1 },
    { id: 'b', weight: 1, params: [{ key: 'rows', value: '5', policy: 'replace' }] },
  ],
};

async function admin(app: FastifyInstance, method: 'POST' | 'PUT', url: string, payload: object) {
  const answer = await app.inject({ method, url, headers: { authorization: adminAuth }, payload });
  assert.ok(answer.statusCode < 300, `${method} ${url} → ${answer.statusCode} ${answer.body}`);
  return answer.json();
}

/** A studio in the app's context with a client and token, an instance, a cluster, a bulk run. */
async function seed(app: FastifyInstance): Promise<Seeded> {
  await admin(app, 'POST', '/api/apps/shop/studios', { id: 'acme', name: 'Acme' });
  const client = await admin(app, 'POST', '/api/studios/acme/clients', { name: 'ci' });
  const token = await tokenFor(app, client.clientId, client.clientSecret);
  const access: StudioAccess = {
    studioId: 'acme',
    clientId: client.clientId,
    clientSecret: client.clientSecret,
    token,
    headers: { authorization: `Bearer ${token}` },
  };
  const instance = await createInstance(app, { id: 'shop' });
  await admin(app, 'POST', '/api/apps/shop/searchCluster', { id: 'c1', ...CLUSTER });
  await admin(app, 'POST', '/api/apps/shop/query-profiles', { id: 'web', ...PROFILE });
  await admin(app, 'POST', '/api/apps/shop/experiments', { id: 'e1', ...EXPERIMENT });
  const bulk = await app.inject({
    method: 'POST',
    url: '/em-rules/bulk',
    headers: access.headers,
    payload: { create: [RULE] },
  });
  assert.equal(bulk.statusCode, 202, bulk.body);
  return {
    access,
    embed: `Embed ${instance.embedToken}`,
    clusterId: 'c1',
    bulkOperationId: bulk.json().operationId,
  };
}

/**
 * The sample request of one operation. `scope` tells the app-scoped copy of a route from the
 * root one, so that each creates and deletes its own records.
 */
async function sampleFor(
  app: FastifyInstance,
  seeded: Seeded,
  method: string,
  template: string,
): Promise<InjectOptions> {
  const scope = template.startsWith('/api/apps/') ? 'app' : 'root';
  const path = template.replace(/^\/api\/apps\/\{app\}/, '/api').replace(/^\/studios\/\{studioId\}/, '');
  let url = template.replace('{app}', 'shop').replace('{studioId}', seeded.access.studioId);
  // The answers are compared with their JSON schemas, so the sample asks for JSON (`GET /`
  // answers a page to a client that does not).
  const headers: Record<string, string> = {
    authorization: credentialFor(path, seeded),
    accept: 'application/json',
  };
  let payload: unknown;
  const key = `${method.toUpperCase()} ${path}`;

  if (path.startsWith('/em-rules/{id}')) {
    const rule = await createRule(app, seeded.access, RULE);
    const post = (action: string) =>
      app.inject({ method: 'POST', url: `/em-rules/${rule.id}/${action}`, headers: seeded.access.headers });
    if (path.endsWith('/unpublish') || path.endsWith('/restore')) await post('publish');
    if (path.endsWith('/restore')) {
      await app.inject({ method: 'DELETE', url: `/em-rules/${rule.id}`, headers: seeded.access.headers });
    }
    url = url.replace('{id}', rule.id);
    if (method === 'put') payload = RULE;
    if (path.includes('{historyId}'))
      url = url.replace('{historyId}', await firstEventOf(app, seeded, `/em-rules/${rule.id}`));
  }
  if (path.startsWith('/query-rewrites/{id}')) {
    const created = await app.inject({
      method: 'POST',
      url: '/query-rewrites',
      headers: seeded.access.headers,
      payload: REWRITE,
    });
    const id = created.json<{ id: string }>().id;
    const post = (action: string) =>
      app.inject({ method: 'POST', url: `/query-rewrites/${id}/${action}`, headers: seeded.access.headers });
    if (path.endsWith('/unpublish') || path.endsWith('/restore')) await post('publish');
    if (path.endsWith('/restore')) {
      await app.inject({ method: 'DELETE', url: `/query-rewrites/${id}`, headers: seeded.access.headers });
    }
    url = url.replace('{id}', id);
    if (method === 'put') payload = REWRITE;
    if (path.includes('{historyId}'))
      url = url.replace('{historyId}', await firstEventOf(app, seeded, `/query-rewrites/${id}`));
  }
  url = url.replace('{operationId}', seeded.bulkOperationId);
  if (path.startsWith('/api/history/{id}')) {
    const event = await admin(app, 'POST', '/api/history', {
      object: 'app:shop',
      action: 'deploy',
      summary: 'Deployed',
    });
    url = url.replace('{id}', (event as { id: string }).id);
  }
  if (path.startsWith('/api/users/{username}')) {
    let username = 'admin';
    if (method === 'delete') {
      username = `gone-${scope}`;
      await admin(app, 'POST', '/api/users', { username, password: 'a-user-password', role: 'viewer' });
    }
    url = url.replace('{username}', username);
  }
  if (key === 'GET /api/session') {
    const signedIn = await app.inject({
      method: 'POST',
      url: '/api/session',
      payload: { username: 'admin', password: ADMIN_PASSWORD },
    });
    headers.cookie = String(signedIn.headers['set-cookie']).split(';')[0] ?? '';
  }
  if (path.startsWith('/api/searchCluster')) {
    url = url.replace('{id}', method === 'delete' ? `c-${scope}` : seeded.clusterId);
  }
  if (path.startsWith('/api/typeahead/instances')) {
    // Deleting or rotating the token of the instance whose token the suggestions use would end the run.
    const own = key === 'DELETE /api/typeahead/instances/{id}' || path.endsWith('/embed-token');
    url = url.replace('{id}', own ? `t-${scope}` : 'shop');
  }
  if (path.startsWith('/api/studios/{id}')) {
    // The run's own studio stays; the one deleted is the one this scope created.
    url = url.replace('{id}', key === 'DELETE /api/studios/{id}' ? `s-${scope}` : seeded.access.studioId);
  }
  if (path.startsWith('/api/history/{id}')) {
    const event = await admin(app, 'POST', '/api/history', {
      object: 'note',
      action: 'noted',
      summary: 'A note',
    });
    url = url.replace('{id}', String(event.id));
  }
  if (path.startsWith('/api/query-profiles/{id}')) {
    let profile = 'web';
    if (key === 'DELETE /api/query-profiles/{id}') {
      profile = 'p-gone';
      await admin(app, 'POST', '/api/apps/shop/query-profiles', { id: profile, ...PROFILE });
    }
    url = url.replace('{id}', profile);
    if (path.includes('{keyId}')) {
      const created = await admin(app, 'POST', `/api/apps/shop/query-profiles/${profile}/keys`, {});
      url = url.replace('{keyId}', created.id);
    }
  }
  if (path.startsWith('/api/experiments/{id}')) {
    let experiment = 'e1';
    if (method === 'delete' || path.endsWith('/promote')) {
      // A promotion needs a profile running the experiment; a deletion, one no profile runs.
      experiment = `${method === 'delete' ? 'gone' : 'promoted'}-${scope}`;
      await admin(app, 'POST', '/api/apps/shop/experiments', { id: experiment, ...EXPERIMENT });
      if (method !== 'delete') {
        await admin(app, 'PUT', `/api/apps/shop/query-profiles/p-${scope}`, { ...PROFILE, experiment });
      }
    }
    url = url.replace('{id}', experiment);
  }
  // The analytics of the seeded profile (empty, but every field of the answer's shape).
  url = url.replace('{profile}', 'web');
  if (path.includes('{clientId}')) {
    const spare = await admin(app, 'POST', `/api/studios/${seeded.access.studioId}/clients`, {
      name: 'spare',
    });
    url = url.replace('{clientId}', spare.clientId);
  }

  const link = { subject: `a-${scope}`, object: `b-${scope}`, linkType: 'dependsOn' };
  const bodies: Record<string, unknown> = {
    'POST /api/searchCluster': { id: `c-${scope}`, ...CLUSTER },
    'PUT /api/searchCluster/{id}': CLUSTER,
    'PUT /api/links': link,
    'POST /api/links': link,
    'POST /api/studios': { id: `s-${scope}`, name: 'Studio' },
    'PUT /api/studios/{id}': { name: 'Acme' },
    'POST /api/studios/{id}/clients': { name: `another-${scope}` },
    'POST /api/typeahead/instances': { id: `t-${scope}`, name: 'Instance' },
    'PATCH /api/typeahead/instances/{id}': { name: 'Shop' },
    'PUT /api/typeahead/instances/{id}/terms': { included: ['shoes'], excluded: [] },
    'PATCH /api/typeahead/instances/{id}/terms': { add: { included: ['boots'] } },
    'POST /api/typeahead/instances/{id}/search-logs': [{ query: 'shoes' }],
    'POST /api/objects/import': {
      metadata: { exportedAt: '2026-01-01T00:00:00.000Z', version: 1, secretsOmitted: [] },
      objects: {
        ...Object.fromEntries(
          ['searchClusters', 'queryProfiles', 'studios', 'rules', 'rewrites', 'typeaheadInstances'].map(
            (k) => [k, []],
          ),
        ),
        links: [{ ...link, subject: `objects-${scope}` }],
      },
    },
    'POST /api/users': { username: `u-${scope}`, password: 'a-user-password', role: 'viewer' },
    'PATCH /api/users/{username}': { typeaheadInstances: [] },
    'POST /api/session': { username: 'admin', password: ADMIN_PASSWORD },
    'POST /em-rules': RULE,
    'POST /em-rules/bulk': { create: [RULE] },
    'POST /em-rules/evaluate': { q: 'laptop', useStaging: true, explain: true },
    'POST /query-rewrites': REWRITE,
    'POST /query-rewrites/bulk': { create: [REWRITE] },
    'POST /api/history': { object: `note-${scope}`, action: 'noted', summary: 'A note' },
    'POST /api/query-profiles': { id: 'p-new', ...PROFILE },
    'PUT /api/query-profiles/{id}': PROFILE,
    'POST /api/experiments': { id: `e-new-${scope}`, ...EXPERIMENT },
    'PUT /api/experiments/{id}': EXPERIMENT,
    'POST /api/experiments/{id}/promote': { variant: 'b' },
    'POST /api/signals/{collection}': [{ type: 'click', params: { docId: 'P1', query: 'kettle' } }],
  };
  url = url.replace('{collection}', PROFILE.collection);
  const queries: Record<string, string> = {
    'GET /api/links/directed': `resource=a-${scope}`,
    'DELETE /api/links': new URLSearchParams(link).toString(),
    'GET /typeahead/suggestions': 'prefix=s',
    'GET /em-rules/evaluate': 'q=laptop&explain=true',
    'GET /api/studios/{id}/evaluate': 'q=laptop&explain=true',
    'DELETE /api/signals': 'user_id=shopper-1',
    'GET /api/analytics/{profile}/searches/details': 'search=shoes',
  };
  if (key in bodies) payload = bodies[key];
  if (key in queries) url += `?${queries[key]}`;
  if (key === 'POST /oauth2/token') {
    const { clientId, clientSecret } = seeded.access;
    headers.authorization = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
    headers['content-type'] = 'application/x-www-form-urlencoded';
    payload = 'grant_type=client_credentials';
  }
  if (key === 'POST /oauth2/{authorizationServerId}/v1/token') {
    // As Lucidworks' API reference sends it: the parameters in the query string, no body.
    const { clientId, clientSecret } = seeded.access;
    headers.authorization = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
    url = '/oauth2/default/v1/token?grant_type=client_credentials';
  }
  return {
    method: method.toUpperCase() as 'GET',
    url,
    headers,
    ...(payload === undefined ? {} : { payload: payload as object }),
  };
}

/** The id of the first event (the creation) of a rule or rewrite, from its own history. */
async function firstEventOf(app: FastifyInstance, seeded: Seeded, url: string): Promise<string> {
  const history = await app.inject({ url: `${url}/history?size=1000`, headers: seeded.access.headers });
  assert.equal(history.statusCode, 200, history.body);
  const events = history.json<{ content: Array<{ id: string }> }>().content;
  return events.at(-1)!.id;
}

function credentialFor(path: string, seeded: Seeded): string {
  if (path.startsWith('/typeahead')) return seeded.embed;
  if (path.startsWith('/em-rules') || path.startsWith('/query-rewrites')) {
    return seeded.access.headers.authorization;
  }
  return adminAuth;
}

/** The documented 2xx answers of an operation: status → JSON schema. */
function successSchemas(operation: Operation): Map<number, Schema> {
  const found = new Map<number, Schema>();
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    const schema = response.content?.['application/json']?.schema;
    if (/^2\d\d$/.test(status) && schema) found.set(Number(status), schema);
  }
  return found;
}

/** Validators for the document's schemas; `$ref`s point into its components. */
function validatorsOf(doc: Document): (schema: Schema) => ValidateFunction {
  const ajv = new Ajv({ strict: false, allErrors: true });
  // ajv-formats is CommonJS: its function is the module's default export's `default`.
  formats.default(ajv);
  ajv.addSchema({ $id: 'openapi', components: doc.components });
  const anchored = (schema: Schema) =>
    JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/')) as Schema;
  return (schema) => ajv.compile(anchored(schema));
}

for (const engine of engines) {
  describe(`reply schemas on ${engine}`, { skip: await skipReason(engine) }, () => {
    test("every route's 2xx answer to a sample request matches its documented schema", async (t) => {
      const { app } = await build(t, engine, { tuning: { syncRetryDelaysMs: [1] } });
      const seeded = await seed(app);
      const doc = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json<Document>();
      const validator = validatorsOf(doc);
      const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
        Object.entries(methods)
          .filter(([method]) => METHODS.includes(method))
          .map(([method, operation]) => ({ path, method, operation })),
      );
      // Deletions last, so that every other sample still finds what it reads or changes.
      const ordered = [
        ...operations.filter((o) => o.method !== 'delete'),
        ...operations.filter((o) => o.method === 'delete'),
      ];
      const undocumented: string[] = [];
      const unreached: string[] = [];
      const mismatches: string[] = [];
      let checked = 0;
      for (const { path, method, operation } of ordered) {
        const name = `${method.toUpperCase()} ${path}`;
        if (NEEDS_A_CLUSTER.some((suffix) => path.endsWith(suffix))) {
          unreached.push(name);
          continue;
        }
        const request = await sampleFor(app, seeded, method, path);
        const response = await app.inject(request);
        const context = `${name} (${request.url}) → ${response.statusCode} ${response.body.slice(0, 500)}`;
        assert.ok(response.statusCode >= 200 && response.statusCode < 300, `no 2xx: ${context}`);
        // A 204 has no body to compare with its schema.
        if (response.statusCode === 204) continue;
        const schemas = successSchemas(operation);
        if (schemas.size === 0) {
          undocumented.push(name);
          continue;
        }
        const schema = schemas.get(response.statusCode);
        if (!schema) {
          mismatches.push(`${context}: status ${response.statusCode} is not documented`);
          continue;
        }
        const validate = validator(schema);
        checked++;
        if (!validate(response.json())) {
          mismatches.push(`${context}\n  ${JSON.stringify(validate.errors)}`);
        }
      }
      t.diagnostic(`routes without a documented 2xx JSON schema: ${undocumented.join(', ') || 'none'}`);
      t.diagnostic(`routes whose 2xx needs a live cluster, not sent: ${unreached.join(', ')}`);
      t.diagnostic(`answers checked against their schema: ${checked}`);
      assert.deepEqual(mismatches, []);
      assert.ok(checked > operations.length / 2, `only ${checked} of ${operations.length} routes checked`);
    });
  });
}
