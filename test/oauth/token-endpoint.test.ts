import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { adminAuth, build, contractTest, engines, skipReason } from '../helpers/app.js';
import { studioWithToken, tokenFor } from '../rules/api.js';

for (const engine of engines) {
  describe(`token endpoint and bearer authentication on ${engine}`, {
    skip: await skipReason(engine),
  }, () => {
    const contract = contractTest(engine);
    contract('issues tokens by Basic or form credentials and answers OAuth2 errors', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const form = (body: string, headers: Record<string, string> = {}) =>
        app.inject({
          method: 'POST',
          url: '/oauth2/token',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
          payload: body,
        });
      const ok = await form(
        `grant_type=client_credentials&scope=commercestudio.rules&client_id=${access.clientId}&client_secret=${access.clientSecret}`,
      );
      assert.equal(ok.statusCode, 200);
      const token = ok.json();
      assert.equal(token.token_type, 'Bearer');
      assert.equal(token.expires_in, 3600);
      assert.equal(token.scope, 'commercestudio.rules');
      const payload = JSON.parse(Buffer.from(token.access_token.split('.')[1], 'base64url').toString());
      assert.equal(payload.studio_id, 'shop');
      assert.equal(payload.sub, access.clientId);
      assert.ok(payload.jti && payload.exp - payload.iat === 3600);

      const creds = `client_id=${access.clientId}&client_secret=${access.clientSecret}`;
      assert.deepEqual((await form(`grant_type=password&${creds}`)).json().error, 'unsupported_grant_type');
      assert.deepEqual((await form(creds)).json().error, 'invalid_request');
      assert.deepEqual(
        (await form(`grant_type=client_credentials&scope=other&${creds}`)).json().error,
        'invalid_scope',
      );
      const wrong = await form(
        `grant_type=client_credentials&client_id=${access.clientId}&client_secret=nope`,
      );
      assert.equal(wrong.statusCode, 401);
      assert.deepEqual(Object.keys(wrong.json()).sort(), ['error', 'error_description']);
      assert.equal(wrong.json().error, 'invalid_client');
    });

    test('rate-limits failed token requests per address', async (t) => {
      const { app } = await build(t, engine);
      const attempt = () =>
        app.inject({
          method: 'POST',
          url: '/oauth2/token',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: 'grant_type=client_credentials&client_id=x&client_secret=y',
        });
      for (let i = 0; i < 10; i++) assert.equal((await attempt()).statusCode, 401);
      const limited = await attempt();
      assert.equal(limited.statusCode, 429);
      assert.ok(Number(limited.headers['retry-after']) > 0);
    });

    test('rejects missing, invalid and expired tokens, wrong scopes and revoked clients', async (t) => {
      let now = new Date('2026-03-01T10:00:00Z');
      const { app } = await build(t, engine, { now: () => now });
      const access = await studioWithToken(app, 'shop');
      const list = (authorization?: string) =>
        app.inject({ method: 'GET', url: '/em-rules', headers: authorization ? { authorization } : {} });
      assert.equal((await list()).statusCode, 401);
      const invalid = await list('Bearer not-a-jwt');
      assert.equal(invalid.statusCode, 401);
      assert.deepEqual(
        ['message', 'timestamp', 'status', 'error', 'path'].filter((key) => !(key in invalid.json())),
        [],
      );
      assert.equal((await list(access.headers.authorization)).statusCode, 200);
      now = new Date('2026-03-01T10:59:59Z');
      assert.equal((await list(access.headers.authorization)).statusCode, 200);
      now = new Date('2026-03-01T11:00:01Z');
      const expired = await list(access.headers.authorization);
      assert.equal(expired.statusCode, 401);
      assert.match(expired.json().message, /expired/);

      const rewrites = await studioWithToken(app, 'other', ['commercestudio.rewrites']);
      assert.equal((await list(rewrites.headers.authorization)).statusCode, 403);

      const fresh = await tokenFor(app, access.clientId, access.clientSecret);
      assert.equal((await list(`Bearer ${fresh}`)).statusCode, 200);
      const revoked = await app.inject({
        method: 'DELETE',
        url: `/api/studios/shop/clients/${access.clientId}`,
        headers: { authorization: adminAuth },
      });
      assert.equal(revoked.statusCode, 204);
      assert.equal((await list(`Bearer ${fresh}`)).statusCode, 401);
      const clients = await app.inject({
        url: '/api/studios/shop/clients',
        headers: { authorization: adminAuth },
      });
      assert.deepEqual(clients.json(), []);
    });

    contract(
      'verifies its own tokens through the app’s token service, with the client’s identity',
      async (t) => {
        const { app, store } = await build(t, engine);
        const access = await studioWithToken(app, 'shop', ['commercestudio.rules']);
        const claims = await app.parts.oauth.verify(store.db, access.token);
        assert.deepEqual(claims, {
          studioId: 'shop',
          clientId: access.clientId,
          clientName: 'ci',
          scopes: ['commercestudio.rules'],
        });
        await assert.rejects(app.parts.oauth.verify(store.db, `${access.token}x`), /invalid/);
      },
    );
  });
}
