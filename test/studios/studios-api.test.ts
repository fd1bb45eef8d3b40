import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { call } from '../helpers/api.js';
import { adminAuth, build, contractTest, engines, skipReason } from '../helpers/app.js';

function admin(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  payload?: object,
) {
  return app.inject({ method, url, headers: { authorization: adminAuth }, ...(payload ? { payload } : {}) });
}

for (const engine of engines) {
  describe(`studios API on ${engine}`, { skip: await skipReason(engine) }, () => {
    const contract = contractTest(engine);

    contract(
      'refuses a sync target URL that carries a user name or password, and stores nothing',
      async (t) => {
        const { app } = await build(t, engine);
        await admin(app, 'POST', '/api/studios', { id: 'shop', name: 'Shop' });
        for (const url of [
          'http://user:pass@hooks.example.com/hook',
          'https://token@hooks.example.com/',
          'https://a:b@c',
        ]) {
          const answer = await admin(app, 'PUT', '/api/studios/shop', { syncTargets: [url] });
          assert.equal(answer.statusCode, 400, url);
          assert.equal(answer.json().code, 'invalid-body');
          assert.match(answer.json().message, /without user name or password/);
          assert.doesNotMatch(answer.body, /pass@|token@/, 'the answer repeats no credential');
        }
        // An @ later in the URL is no credential.
        const fine = await admin(app, 'PUT', '/api/studios/shop', {
          syncTargets: ['https://hooks.example.com/a@b?to=x@y'],
        });
        assert.equal(fine.statusCode, 200, fine.body);
        assert.deepEqual((await admin(app, 'GET', '/api/studios/shop')).json().syncTargets, [
          'https://hooks.example.com/a@b?to=x@y',
        ]);
      },
    );

    test('creates, lists, renames and deletes studios; an id is taken once', async (t) => {
      const { app } = await build(t, engine);
      const created = await admin(app, 'POST', '/api/studios', { id: 'shop', name: 'Shop' });
      assert.equal(created.statusCode, 201);
      assert.deepEqual(Object.keys(created.json()).sort(), ['createdAt', 'id', 'name', 'syncTargets']);
      assert.equal((await admin(app, 'POST', '/api/studios', { id: 'shop', name: 'Again' })).statusCode, 409);
      const renamed = await admin(app, 'PUT', '/api/studios/shop', {
        name: 'Shop 2',
        syncTargets: ['https://hooks.example.com/a', 'https://hooks.example.com/a'],
      });
      assert.equal(renamed.statusCode, 200);
      assert.equal(renamed.json().name, 'Shop 2');
      assert.deepEqual(renamed.json().syncTargets, ['https://hooks.example.com/a']);
      // Studios are global: an app scope reaches the same ones.
      const listed = await admin(app, 'GET', '/api/apps/web/studios');
      assert.deepEqual(
        listed.json().map((studio: { id: string }) => studio.id),
        ['shop'],
      );
      assert.equal((await admin(app, 'DELETE', '/api/studios/shop')).statusCode, 204);
      assert.equal((await admin(app, 'GET', '/api/studios/shop')).statusCode, 404);
      assert.equal((await admin(app, 'DELETE', '/api/studios/shop')).statusCode, 404);
    });

    test('refuses to delete a studio a query profile or an experiment uses, forced or not, and changes nothing', async (t) => {
      const { app } = await build(t, engine);
      const ok = (answer: { status: number; body: unknown }) =>
        assert.ok(answer.status < 300, JSON.stringify(answer.body));
      ok(await call(app, 'POST', '/api/studios', { id: 'shop', name: 'Shop' }));
      ok(await call(app, 'POST', '/api/studios', { id: 'spare', name: 'Spare' }));
      ok(
        await call(app, 'PUT', '/api/apps/web/searchCluster/solr', {
          id: 'solr',
          connectString: '127.0.0.1:2181/solr',
        }),
      );
      const profile = { searchCluster: 'solr', collection: 'products', studio: 'shop' };
      ok(await call(app, 'PUT', '/api/apps/web/query-profiles/main', profile));
      const variants = [
        { id: 'a', weight: 1 },
        { id: 'b', weight: 1, studio: 'shop' },
      ];
      ok(await call(app, 'POST', '/api/apps/web/experiments', { id: 'ab', variants }));
      const history = async () => (await call(app, 'GET', '/api/history?size=1000')).body.content.length;
      const before = { studio: (await call(app, 'GET', '/api/studios/shop')).body, events: await history() };
      for (const url of ['/api/studios/shop', '/api/studios/shop?force=true', '/api/apps/web/studios/shop']) {
        const refused = await call(app, 'DELETE', url);
        assert.equal(refused.status, 409, url);
        assert.equal(refused.body.code, 'conflict');
        assert.equal(
          refused.body.message,
          'studio shop is used by query profile web/main and experiment web/ab; change those first',
        );
        assert.deepEqual(refused.body.details.users, ['query profile web/main', 'experiment web/ab']);
      }
      assert.deepEqual(
        { studio: (await call(app, 'GET', '/api/studios/shop')).body, events: await history() },
        before,
      );
      // One user left: named alone.
      ok(await call(app, 'PUT', '/api/apps/web/query-profiles/main', { ...profile, studio: 'spare' }));
      const one = await call(app, 'DELETE', '/api/studios/shop');
      assert.equal(one.status, 409);
      assert.equal(one.body.message, 'studio shop is used by experiment web/ab; change that first');
      ok(
        await call(app, 'PUT', '/api/apps/web/experiments/ab', {
          variants: [variants[0], { id: 'b', weight: 1 }],
        }),
      );
      assert.equal((await call(app, 'DELETE', '/api/studios/shop')).status, 204);
      // The spare studio's user is a profile only.
      assert.equal((await call(app, 'DELETE', '/api/studios/spare')).status, 409);
      ok(await call(app, 'DELETE', '/api/apps/web/query-profiles/main'));
      assert.equal((await call(app, 'DELETE', '/api/studios/spare')).status, 204);
    });

    test('shows a client’s secret only when it is created, and revokes clients', async (t) => {
      const { app } = await build(t, engine);
      await admin(app, 'POST', '/api/studios', { id: 'shop', name: 'Shop' });
      const created = await admin(app, 'POST', '/api/studios/shop/clients', { name: 'ci' });
      assert.equal(created.statusCode, 201);
      const { clientId, clientSecret, scopes } = created.json();
      assert.ok(clientSecret.length >= 40);
      assert.deepEqual(scopes, ['commercestudio.rules', 'commercestudio.rewrites']);
      const again = await admin(app, 'POST', '/api/studios/shop/clients', { name: 'ci' });
      assert.equal(again.statusCode, 409);
      const listed = await admin(app, 'GET', '/api/studios/shop/clients');
      assert.deepEqual(Object.keys(listed.json()[0]).sort(), [
        'clientId',
        'createdAt',
        'name',
        'scopes',
        'studioId',
      ]);
      assert.equal((await admin(app, 'POST', '/api/studios/none/clients', { name: 'ci' })).statusCode, 404);
      assert.equal((await admin(app, 'DELETE', `/api/studios/shop/clients/${clientId}`)).statusCode, 204);
      assert.equal((await admin(app, 'DELETE', `/api/studios/shop/clients/${clientId}`)).statusCode, 404);
      assert.deepEqual((await admin(app, 'GET', '/api/studios/shop/clients')).json(), []);
    });
  });
}
