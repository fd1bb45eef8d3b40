import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { adminAuth, build, contractTest, engines, skipReason } from '../helpers/app.js';
import { admin, createInstance, suggest } from './helpers.js';

for (const engine of engines) {
  describe(`Typeahead API on ${engine}`, { skip: await skipReason(engine) }, () => {
    const contract = contractTest(engine);
    test('creates an instance with defaults and a long URL-safe embed token shown once', async (t) => {
      const { app } = await build(t, engine);
      const created = await admin(app, 'POST', '/instances', { name: 'Shop EN' });
      assert.equal(created.status, 201);
      assert.match(created.body.id, /^[a-z0-9]+$/);
      assert.match(created.body.embedToken, /^[A-Za-z0-9_-]{32,}$/);
      assert.deepEqual(created.body.allowedOrigins, ['*']);
      assert.equal(created.body.topTermsWindowDays, 30);
      assert.equal(created.body.minCount, 3);
      assert.equal(created.body.cacheMaxAgeSeconds, 60);
      const fetched = await admin(app, 'GET', `/instances/${created.body.id}`);
      assert.equal(fetched.status, 200);
      assert.equal(fetched.body.embedToken, undefined);
      assert.equal((await admin(app, 'GET', '/instances')).body.length, 1);
    });

    test('refuses an existing id with 409 and an invalid id with 400', async (t) => {
      const { app } = await build(t, engine);
      await createInstance(app, { id: 'shop-en' });
      assert.equal((await admin(app, 'POST', '/instances', { id: 'shop-en', name: 'x' })).status, 409);
      assert.equal((await admin(app, 'POST', '/instances', { id: 'Shop EN', name: 'x' })).status, 400);
      assert.equal((await admin(app, 'POST', '/instances', { name: 'x', minCount: 0 })).status, 400);
    });

    test('patches settings and deletes an instance, after which its token fails', async (t) => {
      const { app } = await build(t, engine);
      const { id, embedToken } = await createInstance(app);
      const patched = await admin(app, 'PATCH', `/instances/${id}`, { name: 'Renamed', minCount: 5 });
      assert.equal(patched.status, 200);
      assert.equal(patched.body.name, 'Renamed');
      assert.equal(patched.body.minCount, 5);
      const link = { subject: `typeahead:${id}`, object: 'app:shop', linkType: 'inContextOf' };
      assert.equal(
        (
          await app.inject({
            method: 'PUT',
            url: '/api/links',
            headers: { authorization: adminAuth },
            payload: link,
          })
        ).statusCode,
        200,
      );
      assert.equal((await admin(app, 'DELETE', `/instances/${id}`)).status, 204);
      const linked = await app.inject({
        url: `/api/links/check?subject=typeahead:${id}`,
        headers: { authorization: adminAuth },
      });
      assert.equal(linked.json(), false, 'the instance took its links with it');
      assert.equal((await admin(app, 'GET', `/instances/${id}`)).status, 404);
      assert.equal((await suggest(app, embedToken)).status, 401);
    });

    test('reports resident indexes, their suggestions and job runs in the metrics', async (t) => {
      const { app } = await build(t, engine);
      const { id, embedToken } = await createInstance(app);
      await admin(app, 'PUT', `/instances/${id}/terms`, { included: ['Kettle', 'Toaster'], excluded: [] });
      assert.equal((await suggest(app, embedToken)).status, 200);
      assert.equal((await admin(app, 'POST', `/instances/${id}/refresh`)).status, 200);
      const metrics = await app.inject({ url: '/metrics', headers: { authorization: adminAuth } });
      assert.match(metrics.body, /^searchdeck_typeahead_indexes_resident 1$/m);
      assert.match(metrics.body, /^searchdeck_typeahead_suggestions_resident 2$/m);
      assert.match(metrics.body, /^searchdeck_typeahead_job_runs_total\{trigger="request"\} 1$/m);
    });

    test('answers suggestions sorted by key, matching the prefix by key', async (t) => {
      const { app } = await build(t, engine);
      const { id, embedToken } = await createInstance(app);
      await admin(app, 'PUT', `/instances/${id}/terms`, {
        included: ['Electronics', 'Electric', 'elastic', 'Électrique', 'Kettle'],
        excluded: [],
      });
      const all = await suggest(app, embedToken, 'limit=100');
      assert.equal(all.status, 200);
      assert.match(String(all.headers['content-type']), /application\/json/);
      assert.deepEqual(all.body, ['elastic', 'Electric', 'Électrique', 'Electronics', 'Kettle']);
      for (const prefix of ['el', 'EL', '%C3%89l']) {
        assert.deepEqual((await suggest(app, embedToken, `prefix=${prefix}&limit=2`)).body, [
          'elastic',
          'Electric',
        ]);
      }
      assert.equal((await suggest(app, embedToken)).body.length, 5);
      const bare = await app.inject({
        url: '/typeahead/suggestions?prefix=k',
        headers: { authorization: embedToken },
      });
      assert.deepEqual(bare.json(), ['Kettle']);
    });

    contract('checks limit as an integer from 1 to 5000', async (t) => {
      const { app } = await build(t, engine);
      const { embedToken } = await createInstance(app);
      for (const limit of ['0', '5001', 'x', '1.5']) {
        const answer = await suggest(app, embedToken, `limit=${limit}`);
        assert.equal(answer.status, 400, limit);
        assert.equal(answer.body.code, 'invalid-parameter');
      }
      assert.equal((await suggest(app, embedToken, 'limit=5000')).status, 200);
    });

    contract('answers 401 with an Embed challenge without or with a wrong token', async (t) => {
      const { app } = await build(t, engine);
      await createInstance(app);
      for (const token of [undefined, 'nope']) {
        const answer = await suggest(app, token);
        assert.equal(answer.status, 401);
        assert.equal(answer.headers['www-authenticate'], 'Embed');
        assert.equal(answer.body.code, 'unauthorized');
      }
    });

    test('answers 403 when the host names another instance, and isolates instances', async (t) => {
      const { app } = await build(t, engine);
      const en = await createInstance(app, { id: 'shop-en' });
      const de = await createInstance(app, { id: 'shop-de' });
      await admin(app, 'PUT', '/instances/shop-en/terms', { included: ['english'], excluded: [] });
      await admin(app, 'PUT', '/instances/shop-de/terms', { included: ['deutsch'], excluded: [] });
      assert.deepEqual((await suggest(app, en.embedToken)).body, ['english']);
      assert.deepEqual((await suggest(app, de.embedToken)).body, ['deutsch']);
      const host = (name: string) => ({ host: `${name}.typeahead.example.com` });
      assert.equal((await suggest(app, en.embedToken, '', host('shop-de'))).status, 403);
      assert.equal((await suggest(app, en.embedToken, '', host('shop-en'))).status, 200);
      assert.equal((await suggest(app, en.embedToken, '', host('www'))).status, 200);
    });

    test('rotates the token: the old one stops at once, or after the grace period', async (t) => {
      let now = new Date('2026-11-21T10:00:00.000Z');
      const { app } = await build(t, engine, { now: () => now });
      const { id, embedToken: first } = await createInstance(app);
      const rotated = await admin(app, 'POST', `/instances/${id}/embed-token`);
      assert.equal(rotated.status, 200);
      const second = rotated.body.embedToken;
      assert.notEqual(second, first);
      assert.equal((await suggest(app, first)).status, 401);
      assert.equal((await suggest(app, second)).status, 200);
      const graced = await admin(app, 'POST', `/instances/${id}/embed-token?graceSeconds=60`);
      assert.equal(graced.body.previousTokenExpiresAt, '2026-11-21T10:01:00.000Z');
      assert.equal((await suggest(app, second)).status, 200);
      assert.equal((await suggest(app, graced.body.embedToken)).status, 200);
      now = new Date('2026-11-21T10:01:01.000Z');
      assert.equal((await suggest(app, second)).status, 401);
      assert.equal((await admin(app, 'POST', `/instances/${id}/embed-token?graceSeconds=86401`)).status, 400);
    });

    test('keeps one term per key and lets exclusion beat inclusion and top searched', async (t) => {
      const now = new Date('2026-11-21T10:00:00.000Z');
      const { app } = await build(t, engine, { now: () => now });
      const { id, embedToken } = await createInstance(app, { minCount: 1 });
      const put = await admin(app, 'PUT', `/instances/${id}/terms`, {
        included: ['iPhone', 'IPHONE ', 'Galaxy', 'Pixel'],
        excluded: ['iphone'],
      });
      assert.equal(put.status, 200);
      assert.deepEqual(put.body.included, ['Galaxy', 'iPhone', 'Pixel']);
      assert.deepEqual(put.body.excluded, ['iphone']);
      await admin(app, 'POST', `/instances/${id}/search-logs`, [
        { query: 'pixel', count: 5 },
        { query: 'Galaxy', count: 5 },
        { query: 'iphone', count: 9 },
        { query: 'nokia', count: 4 },
      ]);
      const counts = await admin(app, 'POST', `/instances/${id}/refresh`);
      assert.deepEqual(counts.body, { custom: 4, topSearched: 3, served: 3 });
      assert.deepEqual((await suggest(app, embedToken)).body, ['Galaxy', 'nokia', 'Pixel']);
      const terms = await admin(app, 'GET', `/instances/${id}/terms`);
      assert.deepEqual(terms.body.topSearched, [
        { term: 'Galaxy', count: 5 },
        { term: 'pixel', count: 5 },
        { term: 'nokia', count: 4 },
      ]);
    });

    test('adds and removes terms atomically, moving a term between lists in one call', async (t) => {
      const { app } = await build(t, engine);
      const { id, embedToken } = await createInstance(app);
      await admin(app, 'PUT', `/instances/${id}/terms`, { included: ['kettle', 'toaster'], excluded: [] });
      const moved = await admin(app, 'PATCH', `/instances/${id}/terms`, {
        add: { excluded: ['Kettle'], included: ['Blender', 'toaster'] },
        remove: { included: ['KETTLE'] },
      });
      assert.equal(moved.status, 200);
      assert.deepEqual(moved.body.included, ['Blender', 'toaster']);
      assert.deepEqual(moved.body.excluded, ['Kettle']);
      assert.deepEqual(moved.body.counts, { custom: 3, topSearched: 0, served: 2 });
      assert.deepEqual((await suggest(app, embedToken)).body, ['Blender', 'toaster']);
      const bad = await admin(app, 'PATCH', `/instances/${id}/terms`, {
        add: { included: ['ok', 'bad\u0001'] },
      });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.errors[0].field, 'add.included[1]');
      assert.equal((await admin(app, 'GET', `/instances/${id}/terms`)).body.counts.custom, 3);
    });

    test('refuses a change past 4,000 custom terms whole, naming the limit and the count', async (t) => {
      const { app } = await build(t, engine);
      const { id } = await createInstance(app);
      const many = (from: number, count: number) =>
        Array.from({ length: count }, (_, i) => `term ${from + i}`);
      assert.equal(
        (
          await admin(app, 'PUT', `/instances/${id}/terms`, {
            included: many(0, 3000),
            excluded: many(5000, 1000),
          })
        ).status,
        200,
      );
      const over = await admin(app, 'PATCH', `/instances/${id}/terms`, {
        remove: { included: ['term 0'] },
        add: { included: ['new one', 'new two'] },
      });
      assert.equal(over.status, 400);
      assert.equal(over.body.code, 'limit-exceeded');
      assert.match(over.body.message, /4000.*4001/);
      const terms = (await admin(app, 'GET', `/instances/${id}/terms`)).body;
      assert.equal(terms.counts.custom, 4000);
      assert.ok(terms.included.includes('term 0'));
      const put = await admin(app, 'PUT', `/instances/${id}/terms`, {
        included: many(0, 4001),
        excluded: [],
      });
      assert.equal(put.status, 400);
      assert.equal(put.body.code, 'limit-exceeded');
      const same = await admin(app, 'PATCH', `/instances/${id}/terms`, { add: { included: ['TERM 1'] } });
      assert.equal(same.status, 200, 'a key already present adds nothing');
    });

    contract('answers CORS preflights and allowed origins only', async (t) => {
      const { app } = await build(t, engine);
      const { id, embedToken } = await createInstance(app, {
        id: 'shop',
        allowedOrigins: ['https://shop.example'],
      });
      const preflight = await app.inject({
        method: 'OPTIONS',
        url: '/typeahead/suggestions',
        headers: { origin: 'https://shop.example', 'access-control-request-headers': 'authorization' },
      });
      assert.equal(preflight.statusCode, 204);
      assert.equal(preflight.headers['access-control-allow-origin'], 'https://shop.example');
      assert.match(String(preflight.headers['access-control-allow-headers']), /Authorization/);
      const other = await app.inject({
        method: 'OPTIONS',
        url: '/typeahead/suggestions',
        headers: { origin: 'https://evil.example' },
      });
      assert.equal(other.headers['access-control-allow-origin'], undefined);
      const allowed = await suggest(app, embedToken, '', { origin: 'https://shop.example' });
      assert.equal(allowed.headers['access-control-allow-origin'], 'https://shop.example');
      const refused = await suggest(app, embedToken, '', { origin: 'https://evil.example' });
      assert.equal(refused.headers['access-control-allow-origin'], undefined);
      await admin(app, 'PATCH', `/instances/${id}`, { allowedOrigins: ['*'] });
      assert.equal(
        (await suggest(app, embedToken, '', { origin: 'https://any.example' })).headers[
          'access-control-allow-origin'
        ],
        '*',
      );
    });

    contract(
      'sets Cache-Control from the instance and answers 304 to a matching If-None-Match',
      async (t) => {
        const { app } = await build(t, engine);
        const { id, embedToken } = await createInstance(app, { cacheMaxAgeSeconds: 120 });
        await admin(app, 'PUT', `/instances/${id}/terms`, { included: ['kettle'], excluded: [] });
        const first = await suggest(app, embedToken);
        assert.equal(first.headers['cache-control'], 'public, max-age=120');
        const etag = String(first.headers.etag);
        assert.match(etag, /^W\/".+"$/);
        assert.equal((await suggest(app, embedToken, '', { 'if-none-match': etag })).status, 304);
        await admin(app, 'PATCH', `/instances/${id}/terms`, { add: { included: ['kettles'] } });
        const changed = await suggest(app, embedToken, '', { 'if-none-match': etag });
        assert.equal(changed.status, 200);
        assert.deepEqual(changed.body, ['kettle', 'kettles']);
      },
    );

    test('previews suggestions for admins', async (t) => {
      const { app } = await build(t, engine);
      const { id } = await createInstance(app);
      await admin(app, 'PUT', `/instances/${id}/terms`, { included: ['kettle', 'toaster'], excluded: [] });
      assert.deepEqual((await admin(app, 'GET', `/instances/${id}/suggestions?prefix=K`)).body, ['kettle']);
      assert.equal((await admin(app, 'GET', '/instances/nope/suggestions')).status, 404);
    });
  });
}
