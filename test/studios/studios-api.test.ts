import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { adminAuth, build, engines, skipReason } from '../helpers/app.js';

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
