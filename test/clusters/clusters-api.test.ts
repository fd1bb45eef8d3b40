import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import { buildApp } from '../../src/app.js';
import { ensureAdminPassword } from '../../src/security/admin-credentials.js';
import { SecretBox } from '../../src/security/secret-box.js';
import type { Database } from '../../src/storage/schema.js';
import { call } from '../helpers/api.js';
import { type BuildOptions, build, contractTest, engines, freshStore, skipReason } from '../helpers/app.js';
import { captureLog } from '../helpers/log-capture.js';

const PASSWORD = 'Sup3r-s3cret-pa55';
// The key test apps run with (test/helpers/app.ts).
const box = new SecretBox(Buffer.alloc(32, 7));

const cloud = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  connectString: 'zk1:2181,zk2:2181/solr',
  ...extra,
});
const basic = (password: string | undefined = PASSWORD) => ({
  authType: 'BASIC',
  username: 'searchdeck',
  ...(password === undefined ? {} : { password }),
});

async function storedRow(db: Kysely<Database>, id: string) {
  return db.selectFrom('search_cluster').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

const fields = (body: { errors?: Array<{ field: string }> }) =>
  (body.errors ?? []).map((e) => e.field).sort();

for (const engine of engines) {
  describe(`search-cluster definitions on ${engine}`, { skip: await skipReason(engine) }, () => {
    const contract = contractTest(engine);
    test('creates a definition with the defaults and answers it with its timestamps', async (t) => {
      const { app } = await build(t, engine);
      const created = await call(app, 'POST', '/api/searchCluster', cloud('prod'));
      assert.equal(created.status, 200);
      const { createdAt, updatedAt, ...rest } = created.body;
      assert.deepEqual(rest, {
        id: 'prod',
        connectString: 'zk1:2181,zk2:2181/solr',
        cloud: true,
        zkClientTimeout: 30000,
        zkConnectTimeout: 60000,
        bufferCommitWithin: 10000,
        bufferFlushInterval: 1000,
        bufferSize: 100,
        concurrency: 10,
        authConfig: { authType: 'NONE' },
        validateCluster: false,
      });
      assert.match(createdAt, /^\d{4}-\d\d-\d\dT.*Z$/);
      assert.equal(updatedAt, createdAt);
      assert.deepEqual((await call(app, 'GET', '/api/searchCluster/prod')).body, created.body);
      assert.deepEqual((await call(app, 'GET', '/api/searchCluster')).body, [created.body]);
    });

    test('coerces numbers and booleans sent as strings', async (t) => {
      const { app } = await build(t, engine);
      const body = cloud('strings', {
        cloud: 'false',
        connectString: 'http://solr1:8983/solr',
        zkClientTimeout: '3000',
        zkConnectTimeout: '1500',
        bufferFlushInterval: '0',
        bufferSize: '7',
        concurrency: '1024',
        validateCluster: 'false',
      });
      const created = await call(app, 'POST', '/api/searchCluster', body);
      assert.equal(created.status, 200, JSON.stringify(created.body));
      assert.equal(created.body.cloud, false);
      assert.equal(created.body.zkClientTimeout, 3000);
      assert.equal(created.body.bufferFlushInterval, 0);
      assert.equal(created.body.concurrency, 1024);
    });

    contract('rejects any other stand-in for a number, boolean or string, naming each field', async (t) => {
      const { app } = await build(t, engine);
      const answer = await call(
        app,
        'POST',
        '/api/searchCluster',
        cloud('loose', { cloud: 1, zkClientTimeout: null, bufferSize: true, connectString: 2181 }),
      );
      assert.equal(answer.status, 400);
      assert.equal(answer.body.code, 'invalid-body');
      assert.deepEqual(fields(answer.body), ['bufferSize', 'cloud', 'connectString', 'zkClientTimeout']);
      assert.match(answer.body.message, /cloud must be a boolean/);
      const words = await call(app, 'POST', '/api/searchCluster', cloud('w', { zkClientTimeout: 'soon' }));
      assert.deepEqual(words.body.errors, [
        { field: 'zkClientTimeout', message: 'zkClientTimeout must be an integer' },
      ]);
      const fraction = await call(app, 'POST', '/api/searchCluster', cloud('f', { bufferSize: '1.5' }));
      assert.deepEqual(fields(fraction.body), ['bufferSize']);
    });

    contract('rejects values outside their limits', async (t) => {
      const { app } = await build(t, engine);
      const answer = await call(
        app,
        'POST',
        '/api/searchCluster',
        cloud('limits', {
          zkClientTimeout: 999,
          zkConnectTimeout: 600001,
          bufferFlushInterval: -1,
          bufferSize: 0,
          concurrency: 1025,
        }),
      );
      assert.equal(answer.status, 400);
      assert.deepEqual(fields(answer.body), [
        'bufferFlushInterval',
        'bufferSize',
        'concurrency',
        'zkClientTimeout',
        'zkConnectTimeout',
      ]);
      assert.match(answer.body.message, /zkClientTimeout must be ≥ 1000/);
    });

    contract(
      'rejects unknown fields, also inside authConfig, but accepts the read-only timestamps',
      async (t) => {
        const { app } = await build(t, engine);
        const unknown = await call(
          app,
          'POST',
          '/api/searchCluster',
          cloud('x', { zkHosts: 'a', authConfig: { authType: 'NONE', realm: 'r' } }),
        );
        assert.equal(unknown.status, 400);
        assert.deepEqual(fields(unknown.body), ['authConfig.realm', 'zkHosts']);
        assert.match(unknown.body.message, /zkHosts is not a known field/);
        const readOnly = await call(
          app,
          'POST',
          '/api/searchCluster',
          cloud('x', { createdAt: '2000-01-01T00:00:00.000Z', updatedAt: 'whenever' }),
        );
        assert.equal(readOnly.status, 200);
        assert.notEqual(readOnly.body.createdAt, '2000-01-01T00:00:00.000Z');
      },
    );

    contract('checks the connect string for the mode', async (t) => {
      const { app } = await build(t, engine);
      const url = await call(
        app,
        'POST',
        '/api/searchCluster',
        cloud('a', { connectString: 'http://solr1:8983/solr' }),
      );
      assert.equal(url.status, 400);
      assert.deepEqual(fields(url.body), ['connectString']);
      assert.match(url.body.message, /set cloud to false for a standalone Solr/);
      const zk = await call(app, 'POST', '/api/searchCluster', cloud('b', { cloud: false }));
      assert.match(zk.body.message, /connectString must be the http\(s\) base URL of a Solr node/);
      const credentials = await call(
        app,
        'POST',
        '/api/searchCluster',
        cloud('c', { cloud: false, connectString: `http://admin:${PASSWORD}@solr1:8983/solr` }),
      );
      assert.match(credentials.body.message, /must not carry credentials/);
      assert.ok(!JSON.stringify(credentials.body).includes(PASSWORD));
    });

    contract('requires the fields of the auth type and rejects those of another', async (t) => {
      const { app } = await build(t, engine);
      const post = (authConfig: unknown) =>
        call(app, 'POST', '/api/searchCluster', cloud('auth', { authConfig }));
      const basicMissing = await post({ authType: 'BASIC' });
      assert.equal(basicMissing.status, 400);
      assert.deepEqual(fields(basicMissing.body), ['authConfig.password', 'authConfig.username']);
      assert.match(basicMissing.body.message, /authConfig.username is required with authType BASIC/);
      const kerberosMissing = await post({ authType: 'KERBEROS' });
      assert.deepEqual(fields(kerberosMissing.body), ['authConfig.keyTab', 'authConfig.principal']);
      const mixed = await post({ authType: 'NONE', username: 'u', password: PASSWORD });
      assert.deepEqual(fields(mixed.body), ['authConfig.password', 'authConfig.username']);
      assert.match(mixed.body.message, /authConfig.username does not apply to authType NONE/);
      assert.equal(
        (await post({ authType: 'DIGEST' })).body.message,
        'authConfig.authType must be one of NONE, BASIC, KERBEROS',
      );
      const colon = await post({ authType: 'BASIC', username: 'a:b', password: PASSWORD });
      assert.match(colon.body.message, /authConfig.username must not contain ":"/);
      const badKeyTab = await post({
        authType: 'KERBEROS',
        principal: 'sd@EXAMPLE.COM',
        keyTab: 'not base64!',
      });
      assert.match(
        badKeyTab.body.message,
        /keyTab must be the base64 content of a keytab file or an absolute path/,
      );
      const badPrincipal = await post({
        authType: 'KERBEROS',
        principal: 'two words',
        keyTab: '/etc/sd.keytab',
      });
      assert.deepEqual(fields(badPrincipal.body), ['authConfig.principal']);
      const kerberos = await post({
        authType: 'KERBEROS',
        principal: 'sd/host@EXAMPLE.COM',
        keyTab: 'a2V5dGFi',
      });
      assert.equal(kerberos.status, 200);
      assert.deepEqual(kerberos.body.authConfig, {
        authType: 'KERBEROS',
        principal: 'sd/host@EXAMPLE.COM',
        keyTab: '********',
      });
    });

    contract('needs an id on POST, of letters, digits, "-", "_" and "."', async (t) => {
      const { app } = await build(t, engine);
      const missing = await call(app, 'POST', '/api/searchCluster', { connectString: 'zk1:2181' });
      assert.deepEqual(fields(missing.body), ['id']);
      const bad = await call(app, 'POST', '/api/searchCluster', cloud('no/slash'));
      assert.equal(bad.status, 400);
      assert.deepEqual(fields(bad.body), ['id']);
    });

    test('answers 409 when the id exists, keeping the stored definition', async (t) => {
      const { app } = await build(t, engine);
      await call(app, 'POST', '/api/searchCluster', cloud('dup'));
      const again = await call(app, 'POST', '/api/searchCluster', cloud('dup', { concurrency: 3 }));
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'conflict');
      assert.match(again.body.message, /a search cluster with id dup exists already/);
      assert.equal((await call(app, 'GET', '/api/searchCluster/dup')).body.concurrency, 10);
    });

    test('PUT creates, then replaces keeping the creation time; a different id in the body is a 400', async (t) => {
      let clock = Date.parse('2026-11-21T10:00:00.000Z');
      const tick = () => {
        clock += 1000;
        return new Date(clock);
      };
      const { app } = await build(t, engine, { now: tick });
      const created = await call(app, 'PUT', '/api/searchCluster/p', { connectString: 'zk1:2181/solr' });
      assert.equal(created.status, 200);
      assert.equal(created.body.id, 'p');
      const replaced = await call(app, 'PUT', '/api/searchCluster/p', {
        connectString: 'zk9:2181/solr',
        bufferSize: 5,
      });
      assert.equal(replaced.status, 200);
      assert.equal(replaced.body.connectString, 'zk9:2181/solr');
      assert.equal(replaced.body.createdAt, created.body.createdAt);
      assert.ok(replaced.body.updatedAt > created.body.updatedAt);
      // Replace, not merge: what the body leaves out takes its default again.
      const again = await call(app, 'PUT', '/api/searchCluster/p', { connectString: 'zk9:2181/solr' });
      assert.equal(again.body.bufferSize, 100);
      const mismatch = await call(app, 'PUT', '/api/searchCluster/p', { id: 'q', connectString: 'zk1:2181' });
      assert.equal(mismatch.status, 400);
      assert.deepEqual(mismatch.body.errors, [
        { field: 'id', message: 'id "q" in the body differs from "p" in the path' },
      ]);
      assert.equal(
        (await call(app, 'PUT', '/api/searchCluster/p', { id: 'p', connectString: 'zk1:2181' })).status,
        200,
      );
    });

    contract('answers 404 for a definition that does not exist', async (t) => {
      const { app } = await build(t, engine);
      for (const [method, url] of [
        ['GET', '/api/searchCluster/none'],
        ['DELETE', '/api/searchCluster/none'],
        ['GET', '/api/searchCluster/none/nodes'],
        ['GET', '/api/searchCluster/none/status'],
      ] as const) {
        const answer = await call(app, method, url);
        assert.equal(answer.status, 404, url);
        assert.equal(answer.body.message, 'no search cluster none');
      }
    });
  });

  describe(`search-cluster secrets on ${engine}`, { skip: await skipReason(engine) }, () => {
    const contract = contractTest(engine);
    test('answers a set password as the mask and stores it only sealed', async (t) => {
      const { app, store } = await build(t, engine);
      const created = await call(app, 'POST', '/api/searchCluster', cloud('s', { authConfig: basic() }));
      assert.deepEqual(created.body.authConfig, {
        authType: 'BASIC',
        username: 'searchdeck',
        password: '********',
      });
      for (const url of ['/api/searchCluster', '/api/searchCluster/s']) {
        assert.ok(!JSON.stringify((await call(app, 'GET', url)).body).includes(PASSWORD));
      }
      const row = await storedRow(store.db, 's');
      assert.ok(!JSON.stringify(row).includes(PASSWORD));
      assert.match(row.auth_password ?? '', /^v1\./);
      assert.equal(box.open(row.auth_password ?? '', 'search-cluster:s#password'), PASSWORD);
    });

    test('keeps the stored password through GET, change a field, PUT it back', async (t) => {
      const { app, store } = await build(t, engine);
      await call(app, 'POST', '/api/searchCluster', cloud('rt', { authConfig: basic() }));
      const sealed = (await storedRow(store.db, 'rt')).auth_password;
      const read = (await call(app, 'GET', '/api/searchCluster/rt')).body;
      const written = await call(app, 'PUT', '/api/searchCluster/rt', { ...read, concurrency: 4 });
      assert.equal(written.status, 200, JSON.stringify(written.body));
      assert.equal(written.body.concurrency, 4);
      assert.equal(written.body.authConfig.password, '********');
      assert.equal((await storedRow(store.db, 'rt')).auth_password, sealed);
    });

    test('keeps the stored password when a PUT leaves it out, and replaces it when one is given', async (t) => {
      const { app, store } = await build(t, engine);
      await call(app, 'POST', '/api/searchCluster', cloud('k', { authConfig: basic() }));
      const absent = await call(
        app,
        'PUT',
        '/api/searchCluster/k',
        cloud('k', { authConfig: { ...basic(undefined), username: 'other' } }),
      );
      assert.equal(absent.status, 200);
      const kept = (await storedRow(store.db, 'k')).auth_password ?? '';
      assert.equal(box.open(kept, 'search-cluster:k#password'), PASSWORD);
      await call(app, 'PUT', '/api/searchCluster/k', cloud('k', { authConfig: basic('n3w-Pa55') }));
      const replaced = (await storedRow(store.db, 'k')).auth_password ?? '';
      assert.equal(box.open(replaced, 'search-cluster:k#password'), 'n3w-Pa55');
    });

    test('drops the stored password with a change of auth type, and then has none to keep', async (t) => {
      const { app, store } = await build(t, engine);
      await call(app, 'POST', '/api/searchCluster', cloud('d', { authConfig: basic() }));
      const none = await call(
        app,
        'PUT',
        '/api/searchCluster/d',
        cloud('d', { authConfig: { authType: 'NONE' } }),
      );
      assert.deepEqual(none.body.authConfig, { authType: 'NONE' });
      assert.equal((await storedRow(store.db, 'd')).auth_password, null);
      const masked = await call(
        app,
        'PUT',
        '/api/searchCluster/d',
        cloud('d', { authConfig: basic('********') }),
      );
      assert.equal(masked.status, 400);
      assert.equal(
        masked.body.message,
        'authConfig.password is required with authType BASIC: search cluster d has no stored password to keep',
      );
    });

    contract('does not take the mask as a new password', async (t) => {
      const { app } = await build(t, engine);
      const answer = await call(
        app,
        'POST',
        '/api/searchCluster',
        cloud('m', { authConfig: basic('********') }),
      );
      assert.equal(answer.status, 400);
      assert.deepEqual(fields(answer.body), ['authConfig.password']);
    });

    test('keeps a keytab like a password', async (t) => {
      const { app, store } = await build(t, engine);
      const authConfig = { authType: 'KERBEROS', principal: 'sd@EXAMPLE.COM', keyTab: 'a2V5dGFi' };
      await call(app, 'POST', '/api/searchCluster', cloud('kt', { authConfig }));
      const row = await storedRow(store.db, 'kt');
      assert.equal(box.open(row.auth_key_tab ?? '', 'search-cluster:kt#keyTab'), 'a2V5dGFi');
      const read = (await call(app, 'GET', '/api/searchCluster/kt')).body;
      assert.equal(read.authConfig.keyTab, '********');
      await call(app, 'PUT', '/api/searchCluster/kt', read);
      assert.equal((await storedRow(store.db, 'kt')).auth_key_tab, row.auth_key_tab);
    });
  });

  describe(`deleting a search cluster on ${engine}`, { skip: await skipReason(engine) }, () => {
    const contract = contractTest(engine);
    test('refuses with 409 naming the dependants, and deletes nothing', async (t) => {
      const { app } = await build(t, engine);
      await call(app, 'POST', '/api/searchCluster', cloud('used'));
      await call(app, 'PUT', '/api/links', {
        subject: 'datasource:web',
        object: 'search-cluster:used',
        linkType: 'dependsOn',
      });
      // The same relationship written the other way round counts too.
      await call(app, 'PUT', '/api/links', {
        subject: 'search-cluster:used',
        object: 'index:products',
        linkType: 'supports',
      });
      const refused = await call(app, 'DELETE', '/api/searchCluster/used');
      assert.equal(refused.status, 409);
      assert.equal(refused.body.code, 'conflict');
      assert.deepEqual(refused.body.details.dependants.sort(), ['datasource:web', 'index:products']);
      assert.match(
        refused.body.message,
        /search cluster used is still needed: .*datasource:web.* depend on it/,
      );
      assert.match(refused.body.message, /use \?force=true/);
      assert.equal((await call(app, 'GET', '/api/searchCluster/used')).status, 200);
    });

    test("deletes with force, taking the cluster's links with it", async (t) => {
      const { app } = await build(t, engine);
      await call(app, 'POST', '/api/searchCluster', cloud('used'));
      await call(app, 'POST', '/api/searchCluster', cloud('other'));
      await call(app, 'PUT', '/api/links', {
        subject: 'datasource:web',
        object: 'search-cluster:used',
        linkType: 'dependsOn',
      });
      await call(app, 'PUT', '/api/links', {
        subject: 'search-cluster:used',
        object: 'team:search',
        linkType: 'relatesTo',
      });
      await call(app, 'PUT', '/api/links', {
        subject: 'datasource:web',
        object: 'search-cluster:other',
        linkType: 'dependsOn',
      });
      const deleted = await call(app, 'DELETE', '/api/searchCluster/used?force=true');
      assert.equal(deleted.status, 204);
      assert.equal((await call(app, 'GET', '/api/searchCluster/used')).status, 404);
      const links = (await call(app, 'GET', '/api/links')).body.map(
        (l: { subject: string; object: string }) => `${l.subject} ${l.object}`,
      );
      assert.deepEqual(links, ['datasource:web search-cluster:other']);
    });

    test('deletes a cluster nothing depends on, with its other links', async (t) => {
      const { app } = await build(t, engine);
      await call(app, 'POST', '/api/searchCluster', cloud('free'));
      await call(app, 'PUT', '/api/links', {
        subject: 'search-cluster:free',
        object: 'team:search',
        linkType: 'relatesTo',
      });
      assert.equal((await call(app, 'DELETE', '/api/searchCluster/free')).status, 204);
      assert.deepEqual((await call(app, 'GET', '/api/links')).body, []);
      assert.equal((await call(app, 'DELETE', '/api/searchCluster/free')).status, 404);
    });

    contract('takes ?force only as a boolean', async (t) => {
      const { app } = await build(t, engine);
      await call(app, 'POST', '/api/searchCluster', cloud('f'));
      const answer = await call(app, 'DELETE', '/api/searchCluster/f?force=yes');
      assert.equal(answer.status, 400);
      assert.equal(answer.body.code, 'invalid-parameter');
    });
  });

  describe(`search clusters in an app's scope on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('creating in an app puts the cluster in its context, and the app lists only its clusters', async (t) => {
      const { app } = await build(t, engine);
      assert.equal((await call(app, 'POST', '/api/apps/shop/searchCluster', cloud('shop-solr'))).status, 200);
      assert.equal(
        (await call(app, 'PUT', '/api/apps/blog/searchCluster/blog-solr', { connectString: 'zk1:2181/blog' }))
          .status,
        200,
      );
      await call(app, 'POST', '/api/searchCluster', cloud('global'));
      const link = await call(
        app,
        'GET',
        '/api/links/check?subject=search-cluster:shop-solr&object=app:shop&linkType=inContextOf',
      );
      assert.equal(link.body, true);
      const ids = async (url: string) => (await call(app, 'GET', url)).body.map((c: { id: string }) => c.id);
      assert.deepEqual(await ids('/api/apps/shop/searchCluster'), ['shop-solr']);
      assert.deepEqual(await ids('/api/apps/blog/searchCluster'), ['blog-solr']);
      assert.deepEqual(await ids('/api/apps/empty/searchCluster'), []);
      assert.deepEqual(await ids('/api/searchCluster'), ['blog-solr', 'global', 'shop-solr']);
    });

    test("a cluster put into two apps' contexts shows in both", async (t) => {
      const { app } = await build(t, engine);
      await call(app, 'POST', '/api/apps/shop/searchCluster', cloud('shared'));
      await call(app, 'PUT', '/api/links', {
        subject: 'search-cluster:shared',
        object: 'app:blog',
        linkType: 'inContextOf',
      });
      assert.equal((await call(app, 'GET', '/api/apps/blog/searchCluster/shared')).status, 200);
      assert.equal((await call(app, 'GET', '/api/apps/blog/searchCluster')).body.length, 1);
    });

    test('answers 404 for a cluster outside the app, and 409 for creating or replacing one', async (t) => {
      const { app } = await build(t, engine);
      await call(app, 'POST', '/api/searchCluster', cloud('elsewhere'));
      for (const [method, url] of [
        ['GET', '/api/apps/shop/searchCluster/elsewhere'],
        ['DELETE', '/api/apps/shop/searchCluster/elsewhere'],
        ['GET', '/api/apps/shop/searchCluster/elsewhere/nodes'],
        ['GET', '/api/apps/shop/searchCluster/elsewhere/status'],
      ] as const) {
        const answer = await call(app, method, url);
        assert.equal(answer.status, 404, url);
        assert.equal(answer.body.message, 'no search cluster elsewhere in app shop');
      }
      const put = await call(app, 'PUT', '/api/apps/shop/searchCluster/elsewhere', {
        connectString: 'zk1:2181',
      });
      assert.equal(put.status, 409);
      assert.match(put.body.message, /exists already, outside app shop/);
      assert.equal((await call(app, 'POST', '/api/apps/shop/searchCluster', cloud('elsewhere'))).status, 409);
      assert.equal(
        (await call(app, 'GET', '/api/searchCluster/elsewhere')).body.connectString,
        'zk1:2181,zk2:2181/solr',
      );
    });

    test('replaces and deletes a cluster in the app through the app path', async (t) => {
      const { app } = await build(t, engine);
      await call(app, 'POST', '/api/apps/shop/searchCluster', cloud('mine'));
      const replaced = await call(app, 'PUT', '/api/apps/shop/searchCluster/mine', {
        connectString: 'zk7:2181/solr',
      });
      assert.equal(replaced.status, 200);
      assert.equal(replaced.body.connectString, 'zk7:2181/solr');
      assert.equal((await call(app, 'DELETE', '/api/apps/shop/searchCluster/mine')).status, 204);
      assert.equal((await call(app, 'GET', '/api/searchCluster/mine')).status, 404);
      assert.deepEqual((await call(app, 'GET', '/api/links')).body, []);
    });
  });
}

describe('the search-cluster API document', () => {
  test('describes every endpoint with the record schema', async (t) => {
    const { app } = await build(t, 'sqlite');
    const doc = (await app.inject({ url: '/api/openapi.json' })).json();
    for (const path of [
      '/api/searchCluster',
      '/api/searchCluster/{id}',
      '/api/searchCluster/{id}/nodes',
      '/api/searchCluster/{id}/status',
      '/api/apps/{app}/searchCluster',
    ]) {
      assert.ok(doc.paths[path], path);
    }
    assert.equal(doc.components.schemas.SearchClusterBody.properties.zkConnectTimeout.default, 60000);
    assert.equal(doc.components.schemas.SearchCluster.properties.zkConnectTimeout.default, undefined);
  });
});

describe('search-cluster secrets after the secret key changed', () => {
  test('still lists and replaces definitions, and a check answers 500 with the cause only in the log', async (t) => {
    const fresh = await freshStore('sqlite');
    t.after(() => fresh.close());
    await ensureAdminPassword(fresh.store.db, fresh.config.adminPassword);
    const appWith = async (fill: number, logger: BuildOptions['logger'] = false) => {
      const app = await buildApp({
        config: fresh.config,
        store: fresh.store,
        secretKey: Buffer.alloc(32, fill),
        logger,
      });
      t.after(() => app.close());
      return app;
    };
    const before = await appWith(1);
    const body = cloud('old', {
      cloud: false,
      connectString: 'http://127.0.0.1:1/solr',
      authConfig: basic(),
    });
    assert.equal((await call(before, 'POST', '/api/searchCluster', body)).status, 200);

    const log = captureLog();
    const after = await appWith(2, log.logger);
    assert.equal((await call(after, 'GET', '/api/searchCluster/old')).body.authConfig.password, '********');
    const status = await call(after, 'GET', '/api/searchCluster/old/status');
    assert.equal(status.status, 500);
    assert.equal(status.body.message, 'internal error');
    assert.ok(log.lines.some((line) => line.includes('was the secret key changed?')));
    assert.ok(log.lines.every((line) => !line.includes(PASSWORD)));

    assert.equal((await call(after, 'PUT', '/api/searchCluster/old', body)).status, 200);
    const repaired = await call(after, 'GET', '/api/searchCluster/old/status');
    assert.equal(repaired.body.code, 'cluster-unreachable', 'the new password opens, and the check runs');
  });
});
