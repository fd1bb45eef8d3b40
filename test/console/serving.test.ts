// How the service serves the built console: the page for every client route, hashed assets
// cached for a year, a missing asset a 404, and the page's security headers.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Fastify from 'fastify';
import { consoleRoutes } from '../../src/http/console.js';
import { build, contractTest, engines, skipReason } from '../helpers/app.js';

const PAGE =
  '<!doctype html><html><head><title>console</title></head><body><div id="root"></div></body></html>';

async function served(t: import('node:test').TestContext, root: string | undefined) {
  const app = Fastify();
  await consoleRoutes(app, root);
  t.after(() => app.close());
  return app;
}

test('the built console: the page for client routes, hashed assets cached for a year', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'console-dist-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'assets'));
  writeFileSync(join(root, 'index.html'), PAGE);
  writeFileSync(join(root, 'assets', 'index-AbC123.js'), 'console.log(1)');
  const app = await served(t, root);

  for (const url of ['/console', '/console/', '/console/rules', '/console/rules/abc?studio=shop']) {
    const page = await app.inject({ url });
    assert.equal(page.statusCode, 200, url);
    assert.match(String(page.headers['content-type']), /text\/html/, url);
    assert.equal(page.headers['cache-control'], 'no-cache', url);
    assert.equal(page.body, PAGE, url);
  }
  const asset = await app.inject({ url: '/console/assets/index-AbC123.js' });
  assert.equal(asset.statusCode, 200);
  assert.match(String(asset.headers['content-type']), /javascript/);
  assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
  assert.equal((await app.inject({ url: '/console/assets/index-gone.js' })).statusCode, 404);
});

test('a console that was never built says how to build it', async (t) => {
  const app = await served(t, undefined);
  const page = await app.inject({ url: '/console/rules' });
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /npm run build:console/);
});

for (const engine of engines) {
  const contract = contractTest(engine);
  contract(`the app serves the console with the documents' security headers (${engine})`, async (t) => {
    const why = await skipReason(engine);
    if (why) return t.skip(why);
    const { app } = await build(t, engine);
    const page = await app.inject({ url: '/console/typeahead' });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /text\/html/);
    const policy = String(page.headers['content-security-policy']);
    assert.match(policy, /script-src 'self'/);
    assert.match(policy, /frame-ancestors 'none'/);
    // The query preview draws product images and banners from the shop's own servers.
    assert.match(policy, /img-src 'self' data: https: http:/);
    assert.equal(page.headers['x-frame-options'], 'DENY');
  });
}
