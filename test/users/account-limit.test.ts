import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Store } from '../../src/storage/database.js';
import { ADMIN_PASSWORD, build, buildNodes, engines, skipReason, type TestApp } from '../helpers/app.js';
import { basic } from './helpers.js';

// The account under attack is `admin`: its stored hash has the least scrypt cost, so the
// many wrong passwords below cost little.
const address = (i: number) => `198.51.100.${(i % 20) + 1}`;
const HOME = '192.0.2.10';
const NEW = '192.0.2.20';

function login(app: FastifyInstance, password: string, client: string) {
  return app.inject({
    url: '/api/links',
    remoteAddress: client,
    headers: { authorization: basic('admin', password) },
  });
}

function signIn(app: FastifyInstance, password: string, client: string) {
  return app.inject({
    method: 'POST',
    url: '/api/session',
    remoteAddress: client,
    payload: { username: 'admin', password },
  });
}

function statuses(answers: Array<{ statusCode: number }>): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { statusCode } of answers) counts[statusCode] = (counts[statusCode] ?? 0) + 1;
  return counts;
}

async function accountRow(store: Store) {
  return store.db
    .selectFrom('attempt_window')
    .select(['failures', 'pending'])
    .where('counter', '=', 'admin-account')
    .where('client', '=', 'admin')
    .executeTakeFirst();
}

for (const engine of engines) {
  describe(`the failure limit of an account, across addresses and nodes, on ${engine}`, {
    skip: await skipReason(engine),
  }, () => {
    test('20 addresses guessing one account on two nodes get 429 after 10 failures, then wait a doubling delay', async (t) => {
      let now = new Date('2026-11-24T10:00:00.000Z');
      const [a, b] = (await buildNodes(t, engine, 2, { now: () => now })) as [TestApp, TestApp];
      const node = (i: number) => (i % 2 === 0 ? a.app : b.app);
      // 180 guesses, 9 per address: under each address's own limit of 10.
      const answers = [];
      for (let i = 0; i < 180; i++) answers.push(await login(node(i), `wrong${i}`, address(i)));
      assert.deepEqual(statuses(answers), { 401: 10, 429: 170 });
      const refused = answers[10]!;
      assert.equal(refused.headers['retry-after'], '1');
      assert.equal(refused.json().code, 'too-many-requests');
      assert.equal(typeof refused.json().message, 'string');
      assert.deepEqual(await accountRow(a.store), { failures: 10, pending: 0 });
      // Each further guess is checked once its delay has passed, and doubles the next.
      for (const [i, delay] of [1, 2, 4, 8, 16].entries()) {
        const early = await login(node(i), `early${i}`, address(i + 3));
        assert.equal(early.statusCode, 429);
        assert.equal(early.headers['retry-after'], String(delay));
        now = new Date(now.getTime() + delay * 1000);
        assert.equal((await login(node(i + 1), `late${i}`, address(i + 3))).statusCode, 401);
      }
      assert.equal((await login(a.app, 'again', address(7))).headers['retry-after'], '32');
      assert.deepEqual(await accountRow(a.store), { failures: 15, pending: 0 });
    });

    test('of 30 parallel guesses from 30 addresses, exactly 10 are checked', async (t) => {
      const [a, b] = (await buildNodes(t, engine, 2)) as [TestApp, TestApp];
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) => login(i % 2 ? a.app : b.app, `wrong${i}`, `203.0.113.${i + 1}`)),
      );
      assert.deepEqual(statuses(answers), { 401: 10, 429: 20 });
      assert.deepEqual(await accountRow(a.store), { failures: 10, pending: 0 });
    });

    test('the user is not kept out: an address they signed in from passes the delay, a new one waits its turn', async (t) => {
      let now = new Date('2026-11-24T10:00:00.000Z');
      const { app, store } = await build(t, engine, { now: () => now });
      assert.equal((await signIn(app, ADMIN_PASSWORD, HOME)).statusCode, 200);
      for (let i = 0; i < 12; i++) await login(app, `wrong${i}`, address(i));
      assert.equal((await login(app, 'wrong', address(1))).statusCode, 429, 'the account waits');
      // From home: signing in and Basic, while strangers wait.
      assert.equal((await signIn(app, ADMIN_PASSWORD, HOME)).statusCode, 200);
      assert.equal((await login(app, ADMIN_PASSWORD, HOME)).statusCode, 200);
      // A mistake at home is the home address's own; it does not lengthen the account's wait.
      assert.equal((await login(app, 'a-typo', HOME)).statusCode, 401);
      assert.deepEqual(await accountRow(store), { failures: 10, pending: 0 });
      // The right password, remembered by this node, from a new address waits like any guess:
      // otherwise the one right guess would pass while the wrong ones wait.
      const waits = await login(app, ADMIN_PASSWORD, NEW);
      assert.equal(waits.statusCode, 429);
      now = new Date(now.getTime() + Number(waits.headers['retry-after']) * 1000);
      assert.equal((await signIn(app, ADMIN_PASSWORD, NEW)).statusCode, 200, 'its turn');
      assert.deepEqual(await accountRow(store), { failures: 0, pending: 0 }, 'a sign-in clears the count');
      // The new address is known now: a fresh attack does not hold it up.
      for (let i = 0; i < 12; i++) await login(app, `wrong-again${i}`, address(i + 5));
      assert.equal((await login(app, 'wrong', address(1))).statusCode, 429);
      assert.equal((await login(app, ADMIN_PASSWORD, NEW)).statusCode, 200);
      // The per-address limit still holds at home.
      for (let i = 0; i < 9; i++) assert.equal((await login(app, `typo${i}`, HOME)).statusCode, 401);
      const blocked = await login(app, ADMIN_PASSWORD, HOME);
      assert.equal(blocked.statusCode, 429);
      assert.equal(blocked.json().code, 'too-many-requests');
    });

    test('the delay stops growing at 15 minutes; the count is forgotten a day after the last guess', async (t) => {
      let now = new Date('2026-11-24T10:00:00.000Z');
      const { app, store } = await build(t, engine, { now: () => now });
      for (let i = 0; i < 10; i++) await login(app, `wrong${i}`, address(i));
      const waits: string[] = [];
      for (let i = 0; i < 12; i++) {
        const refused = await login(app, 'early', address(i));
        waits.push(String(refused.headers['retry-after']));
        now = new Date(now.getTime() + Number(refused.headers['retry-after']) * 1000);
        assert.equal((await login(app, `late${i}`, address(i))).statusCode, 401);
      }
      assert.deepEqual(waits, ['1', '2', '4', '8', '16', '32', '64', '128', '256', '512', '900', '900']);
      now = new Date(now.getTime() + 24 * 3_600_000 - 1000);
      assert.equal((await login(app, 'wrong', NEW)).statusCode, 401);
      assert.equal(
        (await login(app, ADMIN_PASSWORD, NEW)).headers['retry-after'],
        '900',
        'not forgotten yet',
      );
      now = new Date(now.getTime() + 24 * 3_600_000);
      assert.equal((await login(app, 'wrong', NEW)).statusCode, 401);
      assert.deepEqual(await accountRow(store), { failures: 1, pending: 0 }, 'counted afresh');
    });

    test('a new password forgets the addresses the user signed in from', async (t) => {
      const { app, store } = await build(t, engine);
      assert.equal((await signIn(app, ADMIN_PASSWORD, HOME)).statusCode, 200);
      const known = () => store.db.selectFrom('user_known_client').select('client').execute();
      assert.deepEqual(await known(), [{ client: HOME }]);
      const changed = await app.inject({
        method: 'PATCH',
        url: '/api/users/admin',
        remoteAddress: HOME,
        headers: { authorization: basic('admin', ADMIN_PASSWORD) },
        payload: { password: 'another-admin-password' },
      });
      assert.equal(changed.statusCode, 200);
      assert.deepEqual(await known(), []);
    });
  });
}
