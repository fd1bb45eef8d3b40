import assert from 'node:assert/strict';
import { describe, type TestContext, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { storeAdminHash } from '../../src/security/admin-repository.js';
import { hashSecret } from '../../src/security/password-hash.js';
import type { Store } from '../../src/storage/database.js';
import { ADMIN_PASSWORD, build, buildNodes, engines, skipReason, type TestApp } from '../helpers/app.js';
import { studioWithToken } from '../rules/api.js';

const CLIENT = '203.0.113.7';

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

function adminLogin(app: FastifyInstance, password: string, client = CLIENT) {
  return app.inject({
    url: '/api/links',
    remoteAddress: client,
    headers: { authorization: basic('admin', password) },
  });
}

function tokenRequest(app: FastifyInstance, clientId: string, secret: string, client = CLIENT) {
  return app.inject({
    method: 'POST',
    url: '/oauth2/token',
    remoteAddress: client,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: `grant_type=client_credentials&client_id=${clientId}&client_secret=${secret}`,
  });
}

/** How many answers had each status: `{ 401: 10, 429: 20 }`. */
function statuses(answers: Array<{ statusCode: number }>): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { statusCode } of answers) counts[statusCode] = (counts[statusCode] ?? 0) + 1;
  return counts;
}

/** The failures the database holds for the client (0 when its window is gone); none may be pending. */
async function storedFailures(store: Store, counter: string, client = CLIENT): Promise<number> {
  const row = await store.db
    .selectFrom('attempt_window')
    .select(['failures', 'pending'])
    .where('counter', '=', counter)
    .where('client', '=', client)
    .executeTakeFirst();
  assert.equal(row?.pending ?? 0, 0, 'no check is left under way');
  return row?.failures ?? 0;
}

for (const engine of engines) {
  describe(`failure limits shared by the nodes of one ${engine} database`, {
    skip: await skipReason(engine),
  }, () => {
    const twoNodes = async (t: TestContext): Promise<[FastifyInstance, FastifyInstance, Store]> => {
      const [a, b] = (await buildNodes(t, engine, 2)) as [TestApp, TestApp];
      return [a.app, b.app, a.store];
    };

    test('counts failed admin logins on either node against one limit', async (t) => {
      const [a, b] = await twoNodes(t);
      // An address the admin has signed in from: the account's own limit (test/users) spares it.
      assert.equal((await adminLogin(a, ADMIN_PASSWORD, '203.0.113.8')).statusCode, 200);
      for (let i = 0; i < 10; i++) {
        const failed = await adminLogin(i % 2 === 0 ? a : b, `wrong${i}`);
        assert.equal(failed.statusCode, 401);
      }
      for (const node of [a, b]) {
        const blocked = await adminLogin(node, ADMIN_PASSWORD);
        assert.equal(blocked.statusCode, 429);
        assert.ok(Number(blocked.headers['retry-after']) >= 1);
        assert.equal(blocked.json().code, 'too-many-requests');
      }
      assert.equal((await adminLogin(b, ADMIN_PASSWORD, '203.0.113.8')).statusCode, 200);
    });

    test('counts failed token requests on either node against one limit, in OAuth2 form', async (t) => {
      const [a, b] = await twoNodes(t);
      const access = await studioWithToken(a, 'shop');
      for (let i = 0; i < 10; i++) {
        const failed = await tokenRequest(i % 2 === 0 ? a : b, access.clientId, `wrong${i}`);
        assert.equal(failed.statusCode, 401);
        assert.equal(failed.json().error, 'invalid_client');
      }
      for (const node of [a, b]) {
        const blocked = await tokenRequest(node, access.clientId, access.clientSecret);
        assert.equal(blocked.statusCode, 429);
        assert.ok(Number(blocked.headers['retry-after']) >= 1);
        assert.deepEqual(Object.keys(blocked.json()).sort(), ['error', 'error_description']);
        assert.equal(blocked.json().error, 'invalid_client');
        assert.equal(blocked.headers['cache-control'], 'no-store');
      }
    });

    test('lets exactly 10 of 30 parallel wrong admin passwords through to the check, across nodes', async (t) => {
      const [a, b, store] = await twoNodes(t);
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) => adminLogin(i % 2 === 0 ? a : b, `wrong${i}`)),
      );
      assert.deepEqual(statuses(answers), { 401: 10, 429: 20 });
      assert.equal(await storedFailures(store, 'admin-login'), 10, 'no increment lost, none left over');
      assert.equal((await adminLogin(b, ADMIN_PASSWORD)).statusCode, 429);
    });

    test('lets exactly 10 of 30 parallel wrong client secrets through to the check, across nodes', async (t) => {
      const [a, b, store] = await twoNodes(t);
      const access = await studioWithToken(a, 'shop');
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) => tokenRequest(i % 2 === 0 ? a : b, access.clientId, `wrong${i}`)),
      );
      assert.deepEqual(statuses(answers), { 401: 10, 429: 20 });
      assert.equal(await storedFailures(store, 'token-request'), 10);
    });

    test('lets 50 parallel logins with the right password through: one check, not fifty', async (t) => {
      const [a, b, store] = await twoNodes(t);
      // The password hashed at the service's cost, not the templates' cheap one: a check must
      // take as long as a real one for the parallel copies of a guess to meet it under way.
      await storeAdminHash(store.db, await hashSecret(ADMIN_PASSWORD));
      // A script's first burst, before either node has verified the password once.
      const logins = await Promise.all(
        Array.from({ length: 50 }, (_, i) => adminLogin(i % 2 === 0 ? a : b, ADMIN_PASSWORD)),
      );
      assert.deepEqual(statuses(logins), { 200: 50 });
      assert.equal(await storedFailures(store, 'admin-login'), 0);
      // The same wrong password sent 20 times at once is one guess.
      const guesses = await Promise.all(Array.from({ length: 20 }, () => adminLogin(a, 'wrong')));
      assert.deepEqual(statuses(guesses), { 401: 20 });
      assert.equal(await storedFailures(store, 'admin-login'), 1);
    });

    test('does not count successful logins and token requests, in parallel or not', async (t) => {
      const [a, b, store] = await twoNodes(t);
      const access = await studioWithToken(a, 'shop');
      for (let i = 0; i < 5; i++) assert.equal((await adminLogin(a, `wrong${i}`)).statusCode, 401);
      for (let i = 0; i < 5; i++) {
        assert.equal((await tokenRequest(b, access.clientId, `wrong${i}`)).statusCode, 401);
      }
      // Both nodes check the right password with scrypt the first time (counted while it runs).
      const logins = await Promise.all([a, b, a, b].map((node) => adminLogin(node, ADMIN_PASSWORD)));
      assert.deepEqual(statuses(logins), { 200: 4 });
      const tokens = await Promise.all(
        [a, b, a, b].map((node) => tokenRequest(node, access.clientId, access.clientSecret)),
      );
      assert.deepEqual(statuses(tokens), { 200: 4 });
      assert.equal(await storedFailures(store, 'admin-login'), 5);
      assert.equal(await storedFailures(store, 'token-request'), 5);
      // A wrong grant type is not a failed authentication either.
      const badGrant = await b.inject({
        method: 'POST',
        url: '/oauth2/token',
        remoteAddress: CLIENT,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `grant_type=password&client_id=${access.clientId}&client_secret=${access.clientSecret}`,
      });
      assert.equal(badGrant.json().error, 'unsupported_grant_type');
      assert.equal(await storedFailures(store, 'token-request'), 5);
      for (let i = 5; i < 10; i++) assert.equal((await adminLogin(b, `wrong${i}`)).statusCode, 401);
      assert.equal((await adminLogin(a, ADMIN_PASSWORD)).statusCode, 429);
    });

    test('runs only as many checks at once as failures are left, and asks the others to retry in a second', async (t) => {
      const [a, b, store] = await twoNodes(t);
      const access = await studioWithToken(a, 'shop');
      for (let i = 0; i < 9; i++) {
        assert.equal((await tokenRequest(i % 2 ? a : b, access.clientId, `wrong${i}`)).statusCode, 401);
      }
      const tokens = await Promise.all(
        [a, b, a, b].map((node) => tokenRequest(node, access.clientId, access.clientSecret)),
      );
      const waited = tokens.filter((answer) => answer.statusCode === 429);
      assert.ok(tokens.some((answer) => answer.statusCode === 200));
      assert.deepEqual(statuses(tokens), { 200: 4 - waited.length, 429: waited.length });
      for (const answer of waited) assert.equal(answer.headers['retry-after'], '1');
      assert.equal(await storedFailures(store, 'token-request'), 9, 'a client told to wait failed nothing');
      assert.equal((await tokenRequest(b, access.clientId, access.clientSecret)).statusCode, 200);
    });

    test('counts afresh once the window has ended, and sweeps ended windows away', async (t) => {
      let now = new Date('2026-11-24T10:00:00.000Z');
      const { app, store } = await build(t, engine, { now: () => now });
      for (let i = 0; i < 10; i++) assert.equal((await adminLogin(app, `wrong${i}`)).statusCode, 401);
      now = new Date('2026-11-24T10:00:59.000Z');
      const blocked = await adminLogin(app, ADMIN_PASSWORD);
      assert.equal(blocked.statusCode, 429);
      assert.equal(blocked.headers['retry-after'], '1');
      now = new Date('2026-11-24T10:01:00.000Z');
      assert.equal((await adminLogin(app, ADMIN_PASSWORD)).statusCode, 200);
      assert.equal((await adminLogin(app, 'wrong-again')).statusCode, 401);
      assert.equal(await storedFailures(store, 'admin-login'), 1, 'a new window started at 1');
      // Another client's failure a minute later sweeps the ended window of the first.
      now = new Date('2026-11-24T10:03:00.000Z');
      assert.equal((await adminLogin(app, 'wrong', '198.51.100.1')).statusCode, 401);
      assert.equal(await storedFailures(store, 'admin-login'), 0);
      assert.equal(await storedFailures(store, 'admin-login', '198.51.100.1'), 1);
    });
  });
}
