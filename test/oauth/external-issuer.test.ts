import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { adminAuth, build, contractTest, engines, skipReason } from '../helpers/app.js';

const ISSUER = 'https://login.example.test/';
type Key = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
let signingKey: Key;
let strangerKey: Key;
let jwksUrl: string;
let closeJwks: () => void;

before(async () => {
  const pair = await generateKeyPair('ES256');
  signingKey = pair.privateKey;
  strangerKey = (await generateKeyPair('ES256')).privateKey;
  const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  const server = createServer((_request, response) => {
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
  closeJwks = () => server.close();
});
after(() => closeJwks());

function externalToken(
  claims: Record<string, unknown>,
  options: { key?: Key; audience?: string; expiresIn?: string | number; issuedAt?: number } = {},
) {
  return new SignJWT({ scope: 'commercestudio.rules', client_id: 'merch-tool', ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
    .setIssuer(ISSUER)
    .setAudience(options.audience ?? 'searchdeck')
    .setIssuedAt(options.issuedAt)
    .setExpirationTime(options.expiresIn ?? '5m')
    .sign(options.key ?? signingKey);
}

for (const engine of engines) {
  describe(`tokens of an external OpenID Connect issuer on ${engine}`, {
    skip: await skipReason(engine),
  }, () => {
    const contract = contractTest(engine);
    async function app(t: Parameters<typeof build>[0]) {
      const built = await build(t, engine, {
        env: {
          SEARCHDECK_OIDC_ISSUER: ISSUER,
          SEARCHDECK_OIDC_JWKS_URL: jwksUrl,
          SEARCHDECK_OIDC_AUDIENCE: 'searchdeck',
        },
      });
      for (const id of ['acme', 'other']) {
        const created = await built.app.inject({
          method: 'POST',
          url: '/api/studios',
          headers: { authorization: adminAuth },
          payload: { id, name: id },
        });
        assert.equal(created.statusCode, 201);
      }
      return built.app;
    }
    const rule = { type: 'redirect', name: 'Go', url: 'https://shop.example.com/sale' };

    test('accepts a token the issuer signed, acting in the studio its claim names', async (t) => {
      const service = await app(t);
      const authorization = `Bearer ${await externalToken({ studio_id: 'acme' })}`;
      const created = await service.inject({
        method: 'POST',
        url: '/em-rules',
        headers: { authorization },
        payload: rule,
      });
      assert.equal(created.statusCode, 201, created.body);
      assert.equal(created.json().createdBy, 'client:merch-tool');
      const elsewhere = await service.inject({
        url: `/studios/other/em-rules/${created.json().id}`,
        headers: { authorization },
      });
      assert.equal(elsewhere.statusCode, 403);
    });

    contract(
      'rejects tokens signed by another key, for another audience, expired, or without a studio',
      async (t) => {
        const service = await app(t);
        const tokens = [
          await externalToken({ studio_id: 'acme' }, { key: strangerKey }),
          await externalToken({ studio_id: 'acme' }, { audience: 'someone-else' }),
          await externalToken({ studio_id: 'acme' }, { expiresIn: '-1m' }),
          await externalToken({}),
          await externalToken({ studio_id: 'no-such-studio' }),
        ];
        for (const token of tokens) {
          const response = await service.inject({
            url: '/em-rules',
            headers: { authorization: `Bearer ${token}` },
          });
          assert.equal(response.statusCode, 401, response.body);
          assert.equal(response.json().code, 'unauthorized');
        }
      },
    );

    test('stops a token at once when its studio is deleted, and never accepts it for a studio created again under that id', async (t) => {
      let clock = Date.parse('2026-03-01T10:00:00Z');
      const { app: service } = await build(t, engine, {
        now: () => new Date(clock),
        env: {
          SEARCHDECK_OIDC_ISSUER: ISSUER,
          SEARCHDECK_OIDC_JWKS_URL: jwksUrl,
          SEARCHDECK_OIDC_AUDIENCE: 'searchdeck',
        },
      });
      const admin = (method: 'POST' | 'DELETE', url: string, payload?: object) =>
        service.inject({
          method,
          url,
          headers: { authorization: adminAuth },
          ...(payload ? { payload } : {}),
        });
      const list = (token: string) =>
        service.inject({ url: '/em-rules', headers: { authorization: `Bearer ${token}` } });
      const seconds = (ms: number) => Math.floor(ms / 1000);

      assert.equal((await admin('POST', '/api/studios', { id: 'acme', name: 'acme' })).statusCode, 201);
      clock += 10_000;
      const old = await externalToken(
        { studio_id: 'acme' },
        { issuedAt: seconds(clock), expiresIn: seconds(clock) + 3600 },
      );
      clock += 10_000;
      assert.equal((await list(old)).statusCode, 200);

      assert.equal((await admin('DELETE', '/api/studios/acme')).statusCode, 204);
      assert.equal((await list(old)).statusCode, 401);
      clock += 10_000;
      assert.equal((await admin('POST', '/api/studios', { id: 'acme', name: 'acme' })).statusCode, 201);
      const refused = await list(old);
      assert.equal(refused.statusCode, 401);
      assert.equal(refused.json().code, 'unauthorized');
      const fresh = await externalToken(
        { studio_id: 'acme' },
        { issuedAt: seconds(clock), expiresIn: seconds(clock) + 3600 },
      );
      assert.equal((await list(fresh)).statusCode, 200);
    });

    contract('still requires the rules scope', async (t) => {
      const service = await app(t);
      const token = await externalToken({ studio_id: 'acme', scope: 'commercestudio.rewrites' });
      const response = await service.inject({
        url: '/em-rules',
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(response.statusCode, 403);
    });
  });
}
