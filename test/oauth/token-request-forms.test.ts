// The token request as Lucidworks' API reference shows it (the authorization server's URL,
// `grant_type` and `scope` in the query string, Basic credentials, no body), beside RFC 6749's
// form body; and what happens when a parameter is given twice.
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { build, contractTest, engines, skipReason } from '../helpers/app.js';
import { captureLog } from '../helpers/log-capture.js';
import { type StudioAccess, studioWithToken } from '../rules/api.js';

const FORM = 'application/x-www-form-urlencoded';

function basic(access: StudioAccess): string {
  return `Basic ${Buffer.from(`${access.clientId}:${access.clientSecret}`).toString('base64')}`;
}

function tokenRequest(
  app: FastifyInstance,
  url: string,
  options: { headers?: Record<string, string>; body?: string } = {},
) {
  return app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': FORM, ...options.headers },
    ...(options.body === undefined ? {} : { payload: options.body }),
  });
}

function claimsOf(accessToken: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString());
}

for (const engine of engines) {
  describe(`token requests in the forms clients send on ${engine}`, {
    skip: await skipReason(engine),
  }, () => {
    // Every test here is of the token request's wire format: the engine plays no part.
    const contract = contractTest(engine);
    contract(
      'answers the request exactly as the API reference shows it, for any authorization server id',
      async (t) => {
        const { app } = await build(t, engine);
        const access = await studioWithToken(app, 'shop');
        // The reference's curl: POST …/oauth2/{auth}/v1/token?grant_type=…&scope=…, Basic, no body.
        for (const serverId of ['ausao8uveaPmyhv0v357', 'default', 'x']) {
          const answer = await tokenRequest(
            app,
            `/oauth2/${serverId}/v1/token?grant_type=client_credentials&scope=commercestudio.rules`,
            {
              headers: {
                accept: 'application/json',
                authorization: basic(access),
                'cache-control': 'no-cache',
              },
            },
          );
          assert.equal(answer.statusCode, 200, answer.body);
          assert.equal(answer.headers['cache-control'], 'no-store');
          const token = answer.json();
          assert.deepEqual(Object.keys(token).sort(), ['access_token', 'expires_in', 'scope', 'token_type']);
          assert.equal(token.token_type, 'Bearer');
          assert.equal(token.expires_in, 3600);
          assert.equal(token.scope, 'commercestudio.rules');
          assert.equal(claimsOf(token.access_token).studio_id, 'shop');
          const rules = await app.inject({
            url: '/em-rules',
            headers: { authorization: `Bearer ${token.access_token}` },
          });
          assert.equal(rules.statusCode, 200);
        }
      },
    );

    contract(
      'answers at the authorization server URL exactly as at /oauth2/token, errors included',
      async (t) => {
        const { app } = await build(t, engine);
        const access = await studioWithToken(app, 'shop');
        const bodies = [
          `grant_type=client_credentials&client_id=${access.clientId}&client_secret=${access.clientSecret}`,
          `grant_type=password&client_id=${access.clientId}&client_secret=${access.clientSecret}`,
          `grant_type=client_credentials&scope=other&client_id=${access.clientId}&client_secret=${access.clientSecret}`,
          `grant_type=client_credentials&client_id=${access.clientId}&client_secret=wrong`,
          `client_id=${access.clientId}&client_secret=${access.clientSecret}`,
        ];
        for (const body of bodies) {
          const plain = await tokenRequest(app, '/oauth2/token', { body });
          const named = await tokenRequest(app, '/oauth2/any-server/v1/token', { body });
          assert.equal(named.statusCode, plain.statusCode, body);
          assert.deepEqual(Object.keys(named.json()).sort(), Object.keys(plain.json()).sort(), body);
          if (plain.statusCode !== 200) assert.deepEqual(named.json(), plain.json(), body);
        }
        const unknownPath = await tokenRequest(app, '/oauth2/a/b/v1/token', { body: bodies[0] });
        assert.equal(unknownPath.statusCode, 404);
      },
    );

    contract(
      'takes each parameter from the query string or the form body, and the client from either',
      async (t) => {
        const { app } = await build(t, engine);
        const access = await studioWithToken(app, 'shop', [
          'commercestudio.rules',
          'commercestudio.rewrites',
        ]);
        const credentials = `client_id=${access.clientId}&client_secret=${access.clientSecret}`;
        const cases: Array<[string, string | undefined]> = [
          [
            `/oauth2/token?grant_type=client_credentials&scope=commercestudio.rewrites&${credentials}`,
            undefined,
          ],
          ['/oauth2/token?scope=commercestudio.rewrites', `grant_type=client_credentials&${credentials}`],
          [`/oauth2/token?grant_type=client_credentials&${credentials}`, 'scope=commercestudio.rewrites'],
          [
            '/oauth2/s/v1/token?grant_type=client_credentials',
            `scope=commercestudio.rewrites&${credentials}`,
          ],
        ];
        for (const [url, body] of cases) {
          const answer = await tokenRequest(app, url, body === undefined ? {} : { body });
          assert.equal(answer.statusCode, 200, `${url} ${body}: ${answer.body}`);
          assert.equal(answer.json().scope, 'commercestudio.rewrites', url);
        }
        // Unrecognized query parameters are ignored, as in the body (RFC 6749 §3.2).
        const extra = await tokenRequest(
          app,
          `/oauth2/token?grant_type=client_credentials&foo=bar&${credentials}`,
        );
        assert.equal(extra.statusCode, 200, extra.body);
      },
    );

    contract(
      'takes a parameter given in both the query and the body when both say the same, else refuses it',
      async (t) => {
        const { app } = await build(t, engine);
        const access = await studioWithToken(app, 'shop', [
          'commercestudio.rules',
          'commercestudio.rewrites',
        ]);
        const credentials = `client_id=${access.clientId}&client_secret=${access.clientSecret}`;
        const same = await tokenRequest(
          app,
          '/oauth2/token?grant_type=client_credentials&scope=commercestudio.rules',
          {
            body: `grant_type=client_credentials&scope=commercestudio.rules&${credentials}`,
          },
        );
        assert.equal(same.statusCode, 200, same.body);

        const refused: Array<[string, string, string]> = [
          [
            '/oauth2/token?scope=commercestudio.rules',
            `grant_type=client_credentials&scope=commercestudio.rewrites&${credentials}`,
            'scope',
          ],
          ['/oauth2/token?grant_type=password', `grant_type=client_credentials&${credentials}`, 'grant_type'],
          [`/oauth2/token?client_id=other`, `grant_type=client_credentials&${credentials}`, 'client_id'],
          [
            '/oauth2/token?scope=commercestudio.rules&scope=commercestudio.rules',
            `grant_type=client_credentials&${credentials}`,
            'scope',
          ],
          [
            '/oauth2/token',
            `grant_type=client_credentials&scope=commercestudio.rules&scope=commercestudio.rewrites&${credentials}`,
            'scope',
          ],
          [
            '/oauth2/x/v1/token?grant_type=client_credentials&grant_type=client_credentials',
            credentials,
            'grant_type',
          ],
        ];
        for (const [url, body, parameter] of refused) {
          const answer = await tokenRequest(app, url, { body });
          assert.equal(answer.statusCode, 400, `${url} ${body}: ${answer.body}`);
          assert.deepEqual(Object.keys(answer.json()).sort(), ['error', 'error_description']);
          assert.equal(answer.json().error, 'invalid_request');
          assert.match(answer.json().error_description, new RegExp(`^${parameter} is given`));
          assert.equal(answer.headers['content-type'], 'application/json; charset=utf-8');
        }
      },
    );

    contract(
      'still refuses Basic and form credentials together, also when the form ones come in the query',
      async (t) => {
        const { app } = await build(t, engine);
        const access = await studioWithToken(app, 'shop');
        const answer = await tokenRequest(
          app,
          `/oauth2/v/v1/token?grant_type=client_credentials&client_id=${access.clientId}&client_secret=${access.clientSecret}`,
          { headers: { authorization: basic(access) } },
        );
        assert.equal(answer.statusCode, 400);
        assert.equal(answer.json().error, 'invalid_request');
      },
    );

    contract('writes no client secret from a query string into the log', async (t) => {
      const log = captureLog();
      const { app } = await build(t, engine, { logger: log.logger });
      const access = await studioWithToken(app, 'shop');
      const ok = await tokenRequest(
        app,
        `/oauth2/s/v1/token?grant_type=client_credentials&client_id=${access.clientId}&client_secret=${access.clientSecret}`,
      );
      assert.equal(ok.statusCode, 200);
      const wrong = await tokenRequest(
        app,
        `/oauth2/token?client_secret=Wr0ng-s3cret&grant_type=client_credentials&client_id=${access.clientId}`,
      );
      assert.equal(wrong.statusCode, 401);
      const text = log.lines.join('\n');
      assert.ok(text.includes('client_secret=********'), 'the request lines are there, masked');
      assert.ok(!text.includes(access.clientSecret), 'the secret is in the log');
      assert.ok(!text.includes('Wr0ng-s3cret'), 'the wrong secret is in the log');
    });
  });
}
