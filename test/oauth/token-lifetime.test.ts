import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { adminAuth, build, buildNodes, engines, skipReason } from '../helpers/app.js';
import { type StudioAccess, studioWithToken } from '../rules/api.js';

const rule = { type: 'redirect', name: 'Go', url: 'https://shop.example.com/sale' };

/** A read and a write of the Rules API with the token: their two statuses. */
async function readAndWrite(app: FastifyInstance, access: StudioAccess): Promise<[number, number]> {
  const read = await app.inject({ url: '/em-rules', headers: access.headers });
  const write = await app.inject({
    method: 'POST',
    url: '/em-rules',
    headers: access.headers,
    payload: rule,
  });
  if (read.statusCode === 401) assert.equal(read.json().code, 'unauthorized');
  if (write.statusCode === 401) assert.equal(write.json().code, 'unauthorized');
  return [read.statusCode, write.statusCode];
}

function admin(app: FastifyInstance, method: 'POST' | 'DELETE', url: string, payload?: object) {
  return app.inject({ method, url, headers: { authorization: adminAuth }, ...(payload ? { payload } : {}) });
}

for (const engine of engines) {
  describe(`token lifetime on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('refuses a deleted studio’s tokens at once, for reads and writes, on every node', async (t) => {
      const [one, two] = await buildNodes(t, engine, 2);
      const access = await studioWithToken(one!.app, 'shop');
      // Both nodes have just accepted the token, as they would have under load.
      assert.deepEqual(await readAndWrite(one!.app, access), [200, 201]);
      assert.deepEqual(await readAndWrite(two!.app, access), [200, 201]);

      assert.equal((await admin(one!.app, 'DELETE', '/api/studios/shop?force=true')).statusCode, 204);
      assert.deepEqual(await readAndWrite(two!.app, access), [401, 401]);
      assert.deepEqual(await readAndWrite(one!.app, access), [401, 401]);
    });

    test('never lets a deleted studio’s token act in a studio created again under its id', async (t) => {
      const [one, two] = await buildNodes(t, engine, 2);
      const old = await studioWithToken(one!.app, 'shop');
      assert.deepEqual(await readAndWrite(two!.app, old), [200, 201]);

      assert.equal((await admin(one!.app, 'DELETE', '/api/studios/shop?force=true')).statusCode, 204);
      const renewed = await studioWithToken(one!.app, 'shop');
      for (const node of [one!, two!]) {
        assert.deepEqual(await readAndWrite(node.app, old), [401, 401]);
      }
      const listed = await two!.app.inject({ url: '/em-rules', headers: renewed.headers });
      assert.equal(listed.statusCode, 200);
      // Only the new studio's own rule: nothing the old token sent landed here.
      assert.equal(listed.json().page.totalElements, 0);
      assert.deepEqual(await readAndWrite(two!.app, renewed), [200, 201]);
    });

    test('refuses a deleted client’s tokens at once on every node', async (t) => {
      const [one, two] = await buildNodes(t, engine, 2);
      const access = await studioWithToken(one!.app, 'shop');
      assert.deepEqual(await readAndWrite(two!.app, access), [200, 201]);

      const revoked = await admin(one!.app, 'DELETE', `/api/studios/shop/clients/${access.clientId}`);
      assert.equal(revoked.statusCode, 204);
      assert.deepEqual(await readAndWrite(two!.app, access), [401, 401]);
    });

    test('carries the incarnation of its studio in every token', async (t) => {
      const { app } = await build(t, engine);
      const first = await studioWithToken(app, 'shop');
      await admin(app, 'DELETE', '/api/studios/shop?force=true');
      const second = await studioWithToken(app, 'shop');
      const claims = (access: StudioAccess) =>
        JSON.parse(Buffer.from(access.token.split('.')[1]!, 'base64url').toString()) as Record<
          string,
          string
        >;
      assert.equal(claims(first).studio_id, claims(second).studio_id);
      assert.ok(claims(first).studio_incarnation);
      assert.notEqual(claims(first).studio_incarnation, claims(second).studio_incarnation);
    });
  });
}
