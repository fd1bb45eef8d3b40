// The OpenAPI document the app serves: valid for Redocly's linter and for swagger-parser (what
// client generators rely on), every operation described as a client needs it, and /docs able
// to send real requests with each interface's credential.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { FastifyInstance } from 'fastify';
import { redoclyLint } from '../../scripts/openapi-tools.js';
import { adminAuth, build, contractTest, engines, skipReason } from '../helpers/app.js';

type Security = Array<Record<string, string[]>>;

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  example?: unknown;
  schema: { default?: unknown };
}

interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: Security;
  parameters?: Parameter[];
  responses: Record<string, { $ref?: string; description?: string; content?: Record<string, unknown> }>;
}

interface Document {
  openapi: string;
  servers?: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: {
    securitySchemes: Record<string, Record<string, unknown>>;
    responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
    schemas: Record<string, unknown>;
  };
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

// The credential of each interface (the first prefix that matches), as a client must send it.
const rulesSecurity = (scope: string): Security => [{ bearer: [] }, { oauth2: [scope] }];
const withSession = (security: Security): Security => [...security, { session: [] }];
const EXPECTED_SECURITY: Array<[RegExp, Security | undefined]> = [
  [/^\/api\/apps\/\{app\}\/query\//, [{ queryKey: [] }, { basic: [] }]],
  [/^\/api\/apps\/\{app\}\/signals\//, [{ queryKey: [] }, { basic: [] }, { session: [] }]],
  // Signing in needs no credential; who is signed in and signing out, the session.
  [/^\/api\/session$/, undefined],
  [/^\/api\//, [{ basic: [] }, { session: [] }]],
  [/^\/metrics$/, [{ basic: [] }, { session: [] }]],
  [/^\/typeahead\//, [{ embed: [] }]],
  [/^\/studios\/\{studioId\}\/query-rewrites/, withSession(rulesSecurity('commercestudio.rewrites'))],
  [/^\/query-rewrites/, rulesSecurity('commercestudio.rewrites')],
  [/^\/studios\/\{studioId\}\//, withSession(rulesSecurity('commercestudio.rules'))],
  [/^\/em-rules/, rulesSecurity('commercestudio.rules')],
  [/^\/oauth2\//, [{ clientBasic: [] }, {}]],
  [/^\/(health|ready)?$/, []],
];

function operationsOf(doc: Document): Array<{ path: string; method: string; operation: Operation }> {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({ path, method, operation })),
  );
}

/** The problems of one operation with the document's conventions (empty: none). */
function conventionProblems(doc: Document, path: string, operation: Operation): string[] {
  const problems: string[] = [];
  if (!operation.operationId) problems.push('no operationId');
  if (!operation.summary) problems.push('no summary');
  if (!operation.tags?.length) problems.push('no tags');
  const expected = EXPECTED_SECURITY.find(([prefix]) => prefix.test(path))?.[1];
  if (!operation.security) problems.push('no security requirement');
  else if (expected && JSON.stringify(operation.security) !== JSON.stringify(expected)) {
    problems.push(`security ${JSON.stringify(operation.security)}, expected ${JSON.stringify(expected)}`);
  }
  for (const requirement of operation.security ?? []) {
    for (const scheme of Object.keys(requirement)) {
      if (!doc.components.securitySchemes[scheme]) problems.push(`undeclared security scheme ${scheme}`);
    }
  }
  const statuses = Object.keys(operation.responses);
  const success = statuses.filter((status) => status.startsWith('2'));
  if (success.length === 0) problems.push('no 2xx answer');
  for (const status of success) {
    const description = operation.responses[status]!.description;
    if (!description || description === 'Default Response') problems.push(`${status} not described`);
  }
  const clientErrors = statuses.filter((status) => status.startsWith('4'));
  if (clientErrors.length === 0) problems.push('no 4xx answer');
  // The token endpoint answers in OAuth2's own error format (RFC 6749 §5.2).
  if (!path.startsWith('/oauth2/')) {
    for (const status of clientErrors) {
      if (errorBodyOf(doc, operation.responses[status]!) !== '#/components/schemas/ErrorBody') {
        problems.push(`${status} is not the common error body`);
      }
    }
  }
  const declared = new Set(
    (operation.parameters ?? []).filter((p) => p.in === 'path' && p.required).map((p) => p.name),
  );
  for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
    if (!declared.has(name!)) problems.push(`path parameter ${name} not declared`);
  }
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in === 'query' && parameter.required && parameter.schema.default !== undefined) {
      problems.push(`query parameter ${parameter.name} has a default and is required`);
    }
  }
  return problems;
}

function errorBodyOf(doc: Document, response: Operation['responses'][string]): string | undefined {
  const resolved = response.$ref
    ? doc.components.responses[response.$ref.replace('#/components/responses/', '')]
    : response;
  const content = resolved?.content as Record<string, { schema?: { $ref?: string } }> | undefined;
  return content?.['application/json']?.schema?.$ref;
}

async function documentOf(app: FastifyInstance, url = '/api/openapi.json'): Promise<Document> {
  const answer = await app.inject({ url });
  assert.equal(answer.statusCode, 200);
  return answer.json<Document>();
}

describe('the OpenAPI document', () => {
  // The document does not depend on the storage engine; these run on SQLite only.
  test("passes Redocly's lint (the recommended rules, stricter on examples) without an error", async (t) => {
    const { app } = await build(t, 'sqlite');
    const problems = await redoclyLint(await documentOf(app));
    const describe = (p: (typeof problems)[number]) =>
      `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`;
    t.diagnostic(
      `warnings: ${
        problems
          .filter((p) => p.severity !== 'error')
          .map(describe)
          .join('; ') || 'none'
      }`,
    );
    assert.deepEqual(problems.filter((p) => p.severity === 'error').map(describe), []);
  });

  test('shows each common error answer with an example of its own status and code', async (t) => {
    const { app } = await build(t, 'sqlite');
    const doc = await documentOf(app);
    const codeOf: Record<string, string> = {
      BadRequest: 'invalid-body',
      Unauthorized: 'unauthorized',
      Forbidden: 'forbidden',
      NotFound: 'not-found',
      TooManyRequests: 'too-many-requests',
    };
    const statusOf: Record<string, number> = {
      BadRequest: 400,
      Unauthorized: 401,
      Forbidden: 403,
      NotFound: 404,
      TooManyRequests: 429,
    };
    const responses = doc.components?.responses as Record<
      string,
      { content: Record<string, { example?: unknown }> }
    >;
    for (const [name, code] of Object.entries(codeOf)) {
      const example = responses[name]?.content['application/json']?.example as {
        status: number;
        code: string;
      };
      assert.ok(example, `no example for ${name}`);
      assert.equal(example.status, statusOf[name], name);
      assert.equal(example.code, code, name);
    }
  });

  test('gives no optional query parameter an example, which "Try it out" would send as a filter', async (t) => {
    const { app } = await build(t, 'sqlite');
    const doc = await documentOf(app);
    const withExample: string[] = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        for (const parameter of operation.parameters ?? []) {
          const schema = (parameter as { schema?: { examples?: unknown; example?: unknown } }).schema;
          const shown = parameter.example ?? schema?.examples ?? schema?.example;
          if (parameter.in === 'query' && !parameter.required && shown !== undefined) {
            withExample.push(`${method} ${path} ${parameter.name}`);
          }
        }
      }
    }
    assert.deepEqual(withExample, []);
  });

  test('is valid for swagger-parser, refs resolved', async (t) => {
    const { app } = await build(t, 'sqlite');
    const doc = await documentOf(app);
    assert.equal(doc.openapi, '3.1.0');
    await SwaggerParser.validate(structuredClone(doc) as never);
  });

  test("gives every operation its name, summary, tags, its interface's credential, answers and parameters", async (t) => {
    const { app } = await build(t, 'sqlite');
    const doc = await documentOf(app);
    assert.ok(doc.servers?.length, 'servers');
    const operations = operationsOf(doc);
    assert.ok(operations.length >= 90, `only ${operations.length} operations: is the walk broken?`);
    const problems = operations.flatMap(({ path, method, operation }) =>
      conventionProblems(doc, path, operation).map(
        (problem) => `${method.toUpperCase()} ${path}: ${problem}`,
      ),
    );
    assert.deepEqual(problems, []);
    const ids = operations.map(({ operation }) => operation.operationId);
    assert.deepEqual(
      ids.filter((id, i) => ids.indexOf(id) !== i),
      [],
      'operationIds are unique',
    );
    // The copies under a prefix are named after the route they copy.
    assert.equal(doc.paths['/api/apps/{app}/links']?.get?.operationId, 'listLinksInApp');
    assert.equal(doc.paths['/studios/{studioId}/em-rules']?.get?.operationId, 'listRulesInStudio');
  });

  test('offers the Basic, Embed and Bearer credentials in /docs and keeps them across reloads', async (t) => {
    const { app } = await build(t, 'sqlite');
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const page = await fetch(`${base}/docs/`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /swagger-initializer\.js/);
    const initializer = await (await fetch(`${base}/docs/static/swagger-initializer.js`)).text();
    assert.match(initializer, /"persistAuthorization":\s*true/);
    // The document the page loads (its `url` is replaced by ./json).
    const doc = (await (await fetch(`${base}/docs/json`)).json()) as Document;
    const schemes = doc.components.securitySchemes;
    assert.deepEqual([schemes.basic?.type, schemes.basic?.scheme], ['http', 'basic']);
    assert.deepEqual(
      [schemes.embed?.type, schemes.embed?.in, schemes.embed?.name],
      ['apiKey', 'header', 'Authorization'],
    );
    assert.deepEqual([schemes.bearer?.type, schemes.bearer?.scheme], ['http', 'bearer']);
    assert.equal(
      (schemes.oauth2!.flows as { clientCredentials: { tokenUrl: string } }).clientCredentials.tokenUrl,
      '/oauth2/token',
    );
    assert.deepEqual(doc.paths['/api/links/check']?.get?.security, [{ basic: [] }, { session: [] }]);
    assert.deepEqual(doc.paths['/typeahead/suggestions']?.get?.security, [{ embed: [] }]);
    assert.deepEqual(doc.paths['/em-rules']?.get?.security?.[0], { bearer: [] });
  });
});

/** The request "Try it out" sends for an operation: its examples, the server's URL, a credential. */
function tryItOut(doc: Document, path: string, method: string, authorization: string) {
  const operation = doc.paths[path]![method]!;
  const query = new URLSearchParams();
  let url = path;
  for (const parameter of operation.parameters ?? []) {
    if (parameter.example === undefined) continue;
    if (parameter.in === 'path') url = url.replace(`{${parameter.name}}`, String(parameter.example));
    // Arrays as the document's default style sends them: form, exploded (repeated).
    if (parameter.in === 'query') {
      for (const value of [parameter.example].flat()) query.append(parameter.name, String(value));
    }
  }
  const server = doc.servers![0]!.url.replace(/\/$/, '');
  const search = query.size > 0 ? `?${query}` : '';
  return {
    method: method.toUpperCase() as 'GET',
    url: `${server}${url}${search}`,
    headers: { authorization },
  };
}

/** The example body of an operation: on its media type, or on the shared schema it refers to. */
function bodyExample(doc: Document, path: string, method: string): object {
  const operation = doc.paths[path]![method] as unknown as {
    requestBody: { content: Record<string, { example?: object; schema: { $ref?: string } }> };
  };
  const media = operation.requestBody.content['application/json']!;
  if (media.example) return media.example;
  const name = media.schema.$ref!.replace('#/components/schemas/', '');
  return (doc.components.schemas[name] as { examples: object[] }).examples[0]!;
}

for (const engine of engines) {
  describe(`"Try it out" from the document on ${engine}`, { skip: await skipReason(engine) }, () => {
    const contract = contractTest(engine);
    contract("answers 200 on each interface to the examples with the scheme's credential", async (t) => {
      const { app } = await build(t, engine);
      const doc = await documentOf(app);
      const asAdmin = async (
        method: 'POST' | 'PUT',
        url: string,
        payload: object | string,
        type?: string,
      ) => {
        const headers = { authorization: adminAuth, ...(type ? { 'content-type': type } : {}) };
        const answer = await app.inject({ method, url, headers, payload });
        assert.ok(answer.statusCode < 300, `${url} → ${answer.body}`);
        return answer.json();
      };
      const example = (path: string, method: string) => bodyExample(doc, path, method);

      // Administrative API: HTTP Basic; the README's link, then its check.
      await asAdmin('PUT', '/api/links', example('/api/links', 'put'));
      const check = await app.inject(tryItOut(doc, '/api/links/check', 'get', adminAuth));
      assert.equal(check.statusCode, 200, check.body);
      assert.equal(check.json(), true);

      // Typeahead API: the embed scheme's header value is "Embed <token>".
      const instance = await asAdmin(
        'POST',
        '/api/typeahead/instances',
        example('/api/typeahead/instances', 'post'),
      );
      const id = instance.id as string;
      await asAdmin(
        'PUT',
        `/api/typeahead/instances/${id}/terms`,
        example('/api/typeahead/instances/{id}/terms', 'put'),
      );
      const suggestions = await app.inject(
        tryItOut(doc, '/typeahead/suggestions', 'get', `Embed ${instance.embedToken}`),
      );
      assert.equal(suggestions.statusCode, 200, suggestions.body);
      assert.deepEqual(suggestions.json(), ['Elastic band', 'Electric kettle']);

      // Rules API: a token from the oauth2 scheme's token URL, sent as the bearer scheme says.
      await asAdmin('POST', '/api/studios', example('/api/studios', 'post'));
      const client = await asAdmin('POST', '/api/studios/shop/clients', { name: 'ci' });
      const flows = doc.components.securitySchemes.oauth2!.flows as {
        clientCredentials: { tokenUrl: string };
      };
      const token = await app.inject({
        method: 'POST',
        url: flows.clientCredentials.tokenUrl,
        headers: {
          authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        payload: 'grant_type=client_credentials',
      });
      assert.equal(token.statusCode, 200, token.body);
      const bearer = `Bearer ${token.json().access_token}`;
      const created = await app.inject({
        method: 'POST',
        url: '/em-rules',
        headers: { authorization: bearer },
        payload: example('/em-rules', 'post'),
      });
      assert.equal(created.statusCode, 201, created.body);
      // The listing's examples: tags=sale, types blockList and pinned, sorted by name ascending.
      const listing = await app.inject(tryItOut(doc, '/em-rules', 'get', bearer));
      assert.equal(listing.statusCode, 200, listing.body);
      assert.equal(listing.json().page.size, 20);
    });
  });
}
