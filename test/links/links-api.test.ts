import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { adminAuth, build, contractTest, engines, skipReason } from '../helpers/app.js';

async function put(app: FastifyInstance, link: Record<string, string>, prefix = '/api') {
  return app.inject({
    method: 'PUT',
    url: `${prefix}/links`,
    headers: { authorization: adminAuth },
    payload: link,
  });
}

async function get(app: FastifyInstance, url: string) {
  const response = await app.inject({ method: 'GET', url, headers: { authorization: adminAuth } });
  return { status: response.statusCode, body: response.body ? response.json() : undefined };
}

const plain = (links: Array<Record<string, unknown>>) =>
  links.map(({ subject, object, linkType }) => `${subject} ${linkType} ${object}`);

for (const engine of engines) {
  describe(`Links API on ${engine}`, { skip: await skipReason(engine) }, () => {
    const contract = contractTest(engine);
    test('creates a link and answers it with originator and creation time', async (t) => {
      const { app } = await build(t, engine);
      const response = await put(app, {
        subject: 'datasource:web',
        object: 'parser:web',
        linkType: 'dependsOn',
      });
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.equal(body.originator, 'unspecified');
      assert.match(body.createdAt, /^\d{4}-\d\d-\d\dT/);
      assert.deepEqual(plain([body]), ['datasource:web dependsOn parser:web']);
    });

    contract('accepts link types case-insensitively and answers in camelCase', async (t) => {
      const { app } = await build(t, engine);
      const response = await put(app, { subject: 'a', object: 'b', linkType: 'DEPENDSON' });
      assert.equal(response.json().linkType, 'dependsOn');
      assert.equal((await get(app, '/api/links/check?subject=b&object=a&linkType=SupPorts')).body, true);
    });

    test('checks a link through its reverse and not a one-way relatesTo', async (t) => {
      const { app } = await build(t, engine);
      await put(app, { subject: 'a', object: 'b', linkType: 'isPartOf' });
      await put(app, { subject: 'x', object: 'y', linkType: 'relatesTo' });
      assert.equal((await get(app, '/api/links/check?subject=b&object=a&linkType=hasPart')).body, true);
      assert.equal((await get(app, '/api/links/check?subject=a&object=b&linkType=hasPart')).body, false);
      assert.equal((await get(app, '/api/links/check?subject=x&object=y&linkType=relatesTo')).body, true);
      assert.equal((await get(app, '/api/links/check?subject=y&object=x&linkType=relatesTo')).body, false);
      assert.equal((await get(app, '/api/links/check?subject=y')).body, false);
      assert.equal((await get(app, '/api/links/check?subject=b')).body, true);
      assert.equal((await get(app, '/api/links/check?subject=*&object=b')).body, true);
      assert.equal((await get(app, '/api/links/check')).body, true);
    });

    contract('rejects an unknown link type in a check with 400 instead of false', async (t) => {
      const { app } = await build(t, engine);
      const response = await get(app, '/api/links/check?linkType=likes');
      assert.equal(response.status, 400);
      assert.equal(response.body.code, 'invalid-parameter');
      assert.match(response.body.message, /linkType must be one of dependsOn, supports/);
    });

    test('creates nothing new when the reverse of an existing link is put', async (t) => {
      const { app } = await build(t, engine);
      await put(app, { subject: 'a', object: 'b', linkType: 'dependsOn', originator: 'first' });
      const again = await put(app, { subject: 'b', object: 'a', linkType: 'supports', originator: 'second' });
      assert.equal(again.statusCode, 200);
      assert.equal(again.json().originator, 'first');
      assert.deepEqual(plain((await get(app, '/api/links')).body), ['a dependsOn b']);
    });

    test('lists a stored link in the direction that matches the filter', async (t) => {
      const { app } = await build(t, engine);
      await put(app, { subject: 'a', object: 'b', linkType: 'dependsOn' });
      assert.deepEqual(plain((await get(app, '/api/links?subject=b')).body), ['b supports a']);
      assert.deepEqual(plain((await get(app, '/api/links?object=b')).body), ['a dependsOn b']);
      assert.deepEqual(plain((await get(app, '/api/links?linkType=supports')).body), ['b supports a']);
      assert.deepEqual(plain((await get(app, '/api/links?subject=a&linkType=supports')).body), []);
    });

    test('lists every relationship once, as it was written, without a filter', async (t) => {
      const { app } = await build(t, engine);
      await put(app, { subject: 'b', object: 'a', linkType: 'supports' });
      await put(app, { subject: 's', object: 's', linkType: 'self' });
      await put(app, { subject: 'x', object: 'y', linkType: 'relatesTo' });
      assert.deepEqual(plain((await get(app, '/api/links')).body).sort(), [
        'b supports a',
        's self s',
        'x relatesTo y',
      ]);
      assert.deepEqual(plain((await get(app, '/api/links?subject=s')).body), ['s self s']);
    });

    contract('requires equal ends for a self link', async (t) => {
      const { app } = await build(t, engine);
      const response = await put(app, { subject: 'a', object: 'b', linkType: 'self' });
      assert.equal(response.statusCode, 400);
      assert.equal(response.json().errors[0].field, 'object');
    });

    contract('names the missing or invalid field of a link body', async (t) => {
      const { app } = await build(t, engine);
      const missing = await put(app, { subject: 'a', linkType: 'dependsOn' });
      assert.equal(missing.statusCode, 400);
      assert.equal(missing.json().code, 'invalid-body');
      assert.deepEqual(missing.json().errors, [{ field: 'object', message: 'object is required' }]);
      const control = await put(app, { subject: 'a\u0001', object: 'b', linkType: 'dependsOn' });
      assert.equal(control.json().errors[0].field, 'subject');
      const unknown = await put(app, { subject: 'a', object: 'b', linkType: 'owns' });
      assert.equal(unknown.statusCode, 400);
      assert.equal(unknown.json().code, 'invalid-body');
      assert.equal(unknown.json().errors[0].field, 'linkType');
      assert.equal((await get(app, '/api/links')).body.length, 0);
    });

    contract('accepts POST as a synonym of PUT', async (t) => {
      const { app } = await build(t, engine);
      const response = await app.inject({
        method: 'POST',
        url: '/api/links',
        headers: { authorization: adminAuth },
        payload: { subject: 'a', object: 'b', linkType: 'hasContext' },
      });
      assert.equal(response.statusCode, 200);
      assert.equal((await get(app, '/api/links/check?subject=b&object=a&linkType=inContextOf')).body, true);
    });

    test('deletes a relationship through its reverse and answers 404 when none matched', async (t) => {
      const { app } = await build(t, engine);
      await put(app, { subject: 'a', object: 'b', linkType: 'dependsOn' });
      const del = (q: string) =>
        app.inject({ method: 'DELETE', url: `/api/links?${q}`, headers: { authorization: adminAuth } });
      assert.equal((await del('subject=a&object=b&linkType=relatesTo')).statusCode, 404);
      assert.equal((await del('subject=b&object=a&linkType=supports')).statusCode, 204);
      assert.equal((await get(app, '/api/links/check?subject=a')).body, false);
      const again = await del('subject=a&object=b&linkType=dependsOn');
      assert.equal(again.statusCode, 404);
      assert.equal(again.json().code, 'not-found');
      assert.equal((await del('subject=a&object=b')).statusCode, 400);
    });

    test('follows links transitively, through cycles, each object once', async (t) => {
      const { app } = await build(t, engine);
      await put(app, { subject: 'a', object: 'b', linkType: 'dependsOn' });
      await put(app, { subject: 'c', object: 'b', linkType: 'supports' });
      await put(app, { subject: 'c', object: 'a', linkType: 'dependsOn' });
      await put(app, { subject: 'c', object: 'd', linkType: 'relatesTo' });
      const response = await get(app, '/api/links?subject=a&linkType=dependsOn&transitive=true');
      assert.deepEqual(plain(response.body), ['a dependsOn b', 'a dependsOn c']);
      const reverse = await get(app, '/api/links?subject=a&linkType=supports&transitive=true');
      assert.deepEqual(plain(reverse.body), ['a supports c', 'a supports b']);
      assert.equal((await get(app, '/api/links?subject=a&transitive=true')).status, 400);
      assert.equal((await get(app, '/api/links?linkType=dependsOn&transitive=true')).status, 400);
    });

    test('pages a list with limit and offset and bounds the limit', async (t) => {
      const { app } = await build(t, engine);
      for (const n of [1, 2, 3, 4, 5])
        await put(app, { subject: 'hub', object: `n${n}`, linkType: 'hasPart' });
      const first = (await get(app, '/api/links?subject=hub&limit=2')).body;
      const second = (await get(app, '/api/links?subject=hub&limit=2&offset=2')).body;
      const rest = (await get(app, '/api/links?subject=hub&limit=2&offset=4')).body;
      assert.deepEqual(
        plain([...first, ...second, ...rest]),
        [1, 2, 3, 4, 5].map((n) => `hub hasPart n${n}`),
      );
      assert.equal((await get(app, '/api/links?limit=10001')).status, 400);
      assert.equal((await get(app, '/api/links?limit=0')).status, 400);
      assert.equal((await get(app, '/api/links?offset=-1')).status, 400);
    });

    test('lists the outgoing links of a resource, and with exclusive only those it alone owns', async (t) => {
      const { app } = await build(t, engine);
      await put(app, { subject: 'app:shop', object: 'collection:a', linkType: 'hasPart' });
      await put(app, { subject: 'app:shop', object: 'collection:shared', linkType: 'hasPart' });
      await put(app, { subject: 'app:other', object: 'collection:shared', linkType: 'hasPart' });
      await put(app, { subject: 'job:x', object: 'app:shop', linkType: 'dependsOn' });
      const all = await get(app, '/api/links/directed?resource=app:shop');
      assert.deepEqual(plain(all.body), [
        'app:shop hasPart collection:a',
        'app:shop hasPart collection:shared',
        'app:shop supports job:x',
      ]);
      const exclusive = await get(app, '/api/links/directed?resource=app:shop&exclusive=true');
      assert.deepEqual(plain(exclusive.body), ['app:shop hasPart collection:a', 'app:shop supports job:x']);
      assert.equal((await get(app, '/api/links/directed')).status, 400);
    });

    test('works inside an app context: put joins both ends, reads see only the app', async (t) => {
      const { app } = await build(t, engine);
      const scoped = await put(
        app,
        { subject: 'collection:p', object: 'pipeline:q', linkType: 'dependsOn' },
        '/api/apps/shop',
      );
      assert.equal(scoped.statusCode, 200);
      await put(app, { subject: 'collection:z', object: 'pipeline:q', linkType: 'dependsOn' });
      assert.equal(
        (await get(app, '/api/links/check?subject=collection:p&object=app:shop&linkType=inContextOf')).body,
        true,
      );
      assert.equal(
        (await get(app, '/api/links/check?subject=pipeline:q&object=app:shop&linkType=inContextOf')).body,
        true,
      );
      const inApp = await get(app, '/api/apps/shop/links?object=pipeline:q');
      // The context link itself is inside the app too.
      assert.deepEqual(plain(inApp.body), [
        'collection:p dependsOn pipeline:q',
        'app:shop hasContext pipeline:q',
      ]);
      assert.equal((await get(app, '/api/apps/shop/links/check?subject=collection:z')).body, false);
      assert.equal((await get(app, '/api/links/check?subject=collection:z')).body, true);
      assert.deepEqual((await get(app, '/api/apps/empty/links')).body, []);
      assert.equal((await get(app, '/api/apps/bad%20name/links')).status, 400);
      const del = await app.inject({
        method: 'DELETE',
        url: '/api/apps/shop/links?subject=collection:z&object=pipeline:q&linkType=dependsOn',
        headers: { authorization: adminAuth },
      });
      assert.equal(del.statusCode, 404);
    });
  });
}
