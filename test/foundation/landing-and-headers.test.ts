import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { prefersJson } from '../../src/http/landing-page.js';
import { adminAuth, build } from '../helpers/app.js';
import { TEST_TLS_CERT, TEST_TLS_KEY } from '../helpers/tls.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8';
// The headers JSON answers had before helmet wrote them, and still have.
const DATA_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none';frame-ancestors 'none'",
};
// helmet's headers for documents, which a JSON answer has no use for.
const DOCUMENT_ONLY = ['cross-origin-opener-policy', 'origin-agent-cluster', 'x-dns-prefetch-control'];

describe('the landing page', () => {
  test('answers a browser with a page of links to the console, the docs, the OpenAPI document and health', async (t) => {
    const { app } = await build(t, 'sqlite');
    for (const accept of [BROWSER_ACCEPT, '*/*', undefined]) {
      const page = await app.inject({ url: '/', headers: accept === undefined ? {} : { accept } });
      assert.equal(page.statusCode, 200);
      assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(page.headers.vary, 'Accept');
      for (const link of ['/console', '/docs', '/api/openapi.json', '/health']) {
        assert.ok(page.body.includes(`href="${link}"`), `links ${link}`);
      }
      // A document: helmet's document headers, and a policy that lets nothing load but the
      // page's own inline style sheet, by its hash (a changed sheet without its hash is not applied).
      const sheets = [...page.body.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1] ?? '');
      assert.equal(sheets.length, 1, 'one inline style sheet');
      const hash = createHash('sha256')
        .update(sheets[0] ?? '')
        .digest('base64');
      assert.equal(
        page.headers['content-security-policy'],
        `default-src 'none';style-src 'sha256-${hash}';frame-ancestors 'none'`,
      );
      assert.equal(page.headers['cross-origin-opener-policy'], 'same-origin');
      assert.equal(page.headers['x-frame-options'], 'DENY');
      assert.doesNotMatch(page.body, /<script|<img|<link|style="/);
    }
  });

  test('answers Accept: application/json with the same links as JSON, each of which answers', async (t) => {
    const { app } = await build(t, 'sqlite');
    const index = await app.inject({ url: '/', headers: { accept: 'application/json' } });
    assert.equal(index.statusCode, 200);
    assert.equal(index.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(index.headers.vary, 'Accept');
    const body = index.json();
    assert.deepEqual(body.links, {
      console: '/console',
      docs: '/docs',
      openapi: '/api/openapi.json',
      health: '/health',
      ready: '/ready',
    });
    assert.deepEqual(body.interfaces, { admin: '/api', typeahead: '/typeahead', rules: '/em-rules' });
    for (const link of ['docs', 'openapi', 'health', 'ready']) {
      const answer = await app.inject({ url: body.links[link] });
      assert.ok(answer.statusCode < 400, `${link} answers ${answer.statusCode}`);
    }
    for (const [name, value] of Object.entries(DATA_HEADERS)) assert.equal(index.headers[name], value, name);
  });

  test('is in the OpenAPI document with both of its media types', async (t) => {
    const { app } = await build(t, 'sqlite');
    const document = (await app.inject({ url: '/api/openapi.json' })).json();
    const content = document.paths['/'].get.responses['200'].content;
    assert.deepEqual(Object.keys(content).sort(), ['application/json', 'text/html']);
  });

  test('ranks JSON above HTML only when the Accept header does', () => {
    assert.equal(prefersJson(undefined), false);
    assert.equal(prefersJson('*/*'), false);
    assert.equal(prefersJson(BROWSER_ACCEPT), false);
    assert.equal(prefersJson('application/json'), true);
    assert.equal(prefersJson('application/json, text/plain, */*'), true);
    assert.equal(prefersJson('application/*'), true);
    assert.equal(prefersJson('text/html;q=0.5, application/json'), true);
    assert.equal(prefersJson('application/json;q=0.5, text/html'), false);
    assert.equal(prefersJson('application/json;q=0.9, text/*;q=0.8'), true);
    assert.equal(prefersJson('application/json;q=0, */*'), false);
    assert.equal(prefersJson('APPLICATION/JSON'), true);
    assert.equal(prefersJson('application/json;q=nonsense'), false);
  });
});

/** A GET over real HTTPS (the test's own certificate) to the app; its status and headers. */
function getOverHttps(
  port: number,
  path: string,
): Promise<{ status: number; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const call = request(
      { host: '127.0.0.1', port, path, headers: { authorization: adminAuth }, ca: TEST_TLS_CERT },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers }));
      },
    );
    call.on('error', reject);
    call.end();
  });
}

describe('security headers (helmet)', () => {
  test('keep the JSON answers as they were, with none of the document headers, and no HSTS over HTTP', async (t) => {
    const { app } = await build(t, 'sqlite');
    for (const url of ['/health', '/api/links', '/api/nothing-here', '/typeahead/suggestions?prefix=a']) {
      const answer = await app.inject({ url, headers: { authorization: adminAuth } });
      for (const [name, value] of Object.entries(DATA_HEADERS))
        assert.equal(answer.headers[name], value, `${url} ${name}`);
      for (const name of [...DOCUMENT_ONLY, 'strict-transport-security']) {
        assert.equal(answer.headers[name], undefined, `${url} ${name}`);
      }
    }
  });

  test('give the browsable docs a policy that lets their own scripts run', async (t) => {
    const { app } = await build(t, 'sqlite');
    const docs = await app.inject({ url: '/docs/' });
    assert.equal(docs.statusCode, 200);
    const policy = String(docs.headers['content-security-policy']);
    assert.match(policy, /script-src 'self'/);
    assert.match(policy, /frame-ancestors 'none'/);
    assert.doesNotMatch(policy, /upgrade-insecure-requests/);
    // Images from elsewhere are the console's (its query preview), not the docs'.
    assert.match(policy, /img-src 'self' data:;/);
  });

  test('add Strict-Transport-Security to answers served over HTTPS', async (t) => {
    const { app } = await build(t, 'sqlite');
    await app.ready();
    const server = createServer({ key: TEST_TLS_KEY, cert: TEST_TLS_CERT }, app.routing);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise((resolve) => server.close(resolve)));
    const { port } = server.address() as AddressInfo;
    for (const path of ['/health', '/api/links', '/api/nothing-here', '/']) {
      const answer = await getOverHttps(port, path);
      assert.equal(answer.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains', path);
      assert.equal(answer.headers['x-content-type-options'], 'nosniff', path);
    }
  });
});
