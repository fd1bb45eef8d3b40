import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ADMIN_PASSWORD, adminAuth, build } from '../helpers/app.js';

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

function assertErrorBody(body: Record<string, unknown>, status: number, code: string, path: string) {
  assert.equal(body.status, status);
  assert.equal(body.code, code);
  assert.equal(body.path, path);
  assert.equal(typeof body.message, 'string');
  assert.equal(typeof body.error, 'string');
  assert.ok(!Number.isNaN(Date.parse(String(body.timestamp))));
  assert.ok(!JSON.stringify(body).includes('    at '), 'no stack trace');
}

describe('the HTTP foundation', () => {
  test('answers malformed JSON with 400 and the common error body', async (t) => {
    const { app } = await build(t, 'sqlite');
    const response = await app.inject({
      method: 'PUT',
      url: '/api/links',
      headers: { authorization: adminAuth, 'content-type': 'application/json' },
      payload: '{"subject": ',
    });
    assert.equal(response.statusCode, 400);
    assertErrorBody(response.json(), 400, 'malformed-json', '/api/links');
  });

  test('answers a body over 1 MiB with 413', async (t) => {
    const { app } = await build(t, 'sqlite');
    const response = await app.inject({
      method: 'PUT',
      url: '/api/links',
      headers: { authorization: adminAuth, 'content-type': 'application/json' },
      payload: JSON.stringify({ subject: 'x'.repeat(1024 * 1024 + 10), object: 'b', linkType: 'self' }),
    });
    assert.equal(response.statusCode, 413);
    assertErrorBody(response.json(), 413, 'payload-too-large', '/api/links');
  });

  test('answers an unknown path with 404 and a wrong method with 405 naming the allowed ones', async (t) => {
    const { app } = await build(t, 'sqlite');
    const missing = await app.inject({ url: '/api/nothing-here?x=1', headers: { authorization: adminAuth } });
    assert.equal(missing.statusCode, 404);
    assertErrorBody(missing.json(), 404, 'not-found', '/api/nothing-here');
    const wrong = await app.inject({
      method: 'PATCH',
      url: '/api/links',
      headers: { authorization: adminAuth },
    });
    assert.equal(wrong.statusCode, 405);
    assert.match(String(wrong.headers.allow), /GET/);
    assertErrorBody(wrong.json(), 405, 'method-not-allowed', '/api/links');
  });

  test('answers an unsupported content type with 415', async (t) => {
    const { app } = await build(t, 'sqlite');
    const response = await app.inject({
      method: 'PUT',
      url: '/api/links',
      headers: { authorization: adminAuth, 'content-type': 'application/xml' },
      payload: '<link/>',
    });
    assert.equal(response.statusCode, 415);
    assertErrorBody(response.json(), 415, 'unsupported-media-type', '/api/links');
  });

  test('requires admin credentials and challenges with the searchdeck realm', async (t) => {
    const { app } = await build(t, 'sqlite');
    const none = await app.inject({ url: '/api/links' });
    assert.equal(none.statusCode, 401);
    assert.match(String(none.headers['www-authenticate']), /^Basic realm="searchdeck"/);
    assertErrorBody(none.json(), 401, 'unauthorized', '/api/links');
    const wrongUser = await app.inject({
      url: '/api/links',
      headers: { authorization: basic('root', ADMIN_PASSWORD) },
    });
    assert.equal(wrongUser.statusCode, 401);
    const ok = await app.inject({ url: '/api/links', headers: { authorization: adminAuth } });
    assert.equal(ok.statusCode, 200);
  });

  test('blocks an address after 10 failed logins in a minute with 429 and Retry-After', async (t) => {
    const { app } = await build(t, 'sqlite');
    // The other address has signed in before, so the account's delay for unknown addresses
    // (test/users/account-limit.test.ts) does not hold it: this test is about one address.
    const before = await app.inject({
      url: '/api/links',
      headers: { authorization: adminAuth },
      remoteAddress: '10.9.9.9',
    });
    assert.equal(before.statusCode, 200);
    for (let i = 0; i < 10; i++) {
      const failed = await app.inject({
        url: '/api/links',
        headers: { authorization: basic('admin', `wrong${i}`) },
      });
      assert.equal(failed.statusCode, 401);
    }
    const blocked = await app.inject({ url: '/api/links', headers: { authorization: adminAuth } });
    assert.equal(blocked.statusCode, 429);
    assert.ok(Number(blocked.headers['retry-after']) >= 1);
    assertErrorBody(blocked.json(), 429, 'too-many-requests', '/api/links');
    const elsewhere = await app.inject({
      url: '/api/links',
      headers: { authorization: adminAuth },
      remoteAddress: '10.9.9.9',
    });
    assert.equal(elsewhere.statusCode, 200);
  });

  test('serves health and readiness without credentials', async (t) => {
    const { app } = await build(t, 'sqlite');
    assert.deepEqual((await app.inject({ url: '/health' })).json(), { status: 'ok' });
    assert.deepEqual((await app.inject({ url: '/ready' })).json(), { status: 'ready' });
  });

  test('answers not ready, in the common error body, while migrations are missing', async (t) => {
    const { app, store } = await build(t, 'sqlite');
    await store.db.schema.dropTable('kysely_migration').execute();
    const response = await app.inject({ url: '/ready' });
    assert.equal(response.statusCode, 503);
    assert.equal(response.json().code, 'not-ready');
    assert.ok(response.json().requestId);
  });

  test('serves Prometheus metrics to the admin only', async (t) => {
    const { app } = await build(t, 'sqlite');
    await app.inject({ url: '/api/links', headers: { authorization: adminAuth } });
    assert.equal((await app.inject({ url: '/metrics' })).statusCode, 401);
    const metrics = await app.inject({ url: '/metrics', headers: { authorization: adminAuth } });
    assert.equal(metrics.statusCode, 200);
    assert.match(
      metrics.body,
      /searchdeck_http_request_duration_seconds_count\{method="GET",route="\/api\/links",status="200"\} 1/,
    );
  });

  test('echoes a request id and sets security headers', async (t) => {
    const { app } = await build(t, 'sqlite');
    const given = await app.inject({ url: '/health', headers: { 'x-request-id': 'abc-123' } });
    assert.equal(given.headers['x-request-id'], 'abc-123');
    assert.equal(given.headers['x-content-type-options'], 'nosniff');
    assert.equal(given.headers['x-frame-options'], 'DENY');
    const made = await app.inject({ url: '/health', headers: { 'x-request-id': 'bad id with spaces' } });
    assert.match(String(made.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  });

  test('logs one JSON line per request carrying the request id', async (t) => {
    const lines: string[] = [];
    const stream = { write: (line: string) => lines.push(line) };
    const { app } = await build(t, 'sqlite', { logger: { level: 'info', stream } });
    await app.inject({
      url: '/api/links?subject=a',
      headers: { authorization: adminAuth, 'x-request-id': 'trace-7' },
    });
    const mine = lines.map((l) => JSON.parse(l)).filter((l) => l.reqId === 'trace-7');
    assert.equal(mine.length, 1);
    assert.equal(mine[0].msg, 'request completed');
    assert.equal(mine[0].status, 200);
    assert.ok(!lines.some((l) => l.includes(adminAuth.slice(6))), 'no credentials in the log');
  });

  test('publishes an OpenAPI 3 document of the routes and browsable docs', async (t) => {
    const { app } = await build(t, 'sqlite');
    const doc = (await app.inject({ url: '/api/openapi.json' })).json();
    assert.match(doc.openapi, /^3\./);
    assert.ok(doc.paths['/api/links/check']);
    assert.ok(doc.paths['/api/apps/{app}/links']);
    assert.ok(doc.paths['/health'] && doc.paths['/ready'] && doc.paths['/metrics']);
    const ui = await app.inject({ url: '/docs/' });
    assert.equal(ui.statusCode, 200);
  });

  test('answers an internal failure with 500, "internal error" and the request id only', async (t) => {
    const { app, store } = await build(t, 'sqlite');
    await store.db.schema.dropTable('link').execute();
    const response = await app.inject({
      url: '/api/links',
      headers: { authorization: adminAuth, 'x-request-id': 'r-1' },
    });
    assert.equal(response.statusCode, 500);
    const body = response.json();
    assert.equal(body.message, 'internal error');
    assert.equal(body.requestId, 'r-1');
    assert.doesNotMatch(response.body, /no such table/);
  });
});
