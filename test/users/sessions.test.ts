import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setAdminPassword } from '../../src/security/admin-credentials.js';
import {
  ADMIN_PASSWORD,
  adminAuth,
  build,
  buildNodes,
  contractTest,
  engines,
  skipReason,
} from '../helpers/app.js';
import { createUser, PASSWORD, signIn } from './helpers.js';

for (const engine of engines) {
  describe(`console sessions on ${engine}`, { skip: await skipReason(engine) }, () => {
    const contract = contractTest(engine);
    contract(
      'signing in sets an HttpOnly, SameSite=Strict cookie that is not Secure over plain HTTP',
      async (t) => {
        const { app } = await build(t, engine);
        const session = await signIn(app, 'admin', ADMIN_PASSWORD);
        assert.match(
          session.setCookie,
          /^searchdeck_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict$/,
        );
        const who = await app.inject({ url: '/api/session', headers: { cookie: session.cookie } });
        assert.equal(who.statusCode, 200);
        assert.deepEqual(who.json(), {
          username: 'admin',
          role: 'admin',
          studios: [],
          typeaheadInstances: [],
          csrfToken: session.csrfToken,
        });
      },
    );

    contract(
      'the cookie is Secure over HTTPS behind a trusted proxy and when SEARCHDECK_COOKIE_SECURE is set',
      async (t) => {
        const { app } = await build(t, engine, { env: { SEARCHDECK_TRUST_PROXY: '127.0.0.1' } });
        const viaProxy = await app.inject({
          method: 'POST',
          url: '/api/session',
          headers: { 'x-forwarded-proto': 'https' },
          payload: { username: 'admin', password: ADMIN_PASSWORD },
        });
        assert.match(String(viaProxy.headers['set-cookie']), /; Secure$/);
        const forced = await build(t, engine, { env: { SEARCHDECK_COOKIE_SECURE: 'true' } });
        assert.match((await signIn(forced.app, 'admin', ADMIN_PASSWORD)).setCookie, /; Secure$/);
      },
    );

    contract('a session reads the API; a change needs the CSRF token', async (t) => {
      const { app } = await build(t, engine);
      const { cookie, csrfToken } = await signIn(app, 'admin', ADMIN_PASSWORD);
      assert.equal((await app.inject({ url: '/api/studios', headers: { cookie } })).statusCode, 200);
      const payload = { id: 'shop', name: 'Shop' };
      const without = await app.inject({ method: 'POST', url: '/api/studios', headers: { cookie }, payload });
      assert.equal(without.statusCode, 403);
      assert.equal(without.json().code, 'forbidden');
      const wrong = await app.inject({
        method: 'POST',
        url: '/api/studios',
        headers: { cookie, 'x-csrf-token': 'wrong' },
        payload,
      });
      assert.equal(wrong.statusCode, 403);
      assert.equal(
        (await app.inject({ url: '/api/studios/shop', headers: { authorization: adminAuth } })).statusCode,
        404,
      );
      const right = await app.inject({
        method: 'POST',
        url: '/api/studios',
        headers: { cookie, 'x-csrf-token': csrfToken },
        payload,
      });
      assert.equal(right.statusCode, 201);
    });

    contract(
      'a merchandiser session edits the terms of a listed instance with its CSRF token, also app-scoped',
      async (t) => {
        const { app } = await build(t, engine);
        for (const id of ['mine', 'theirs']) {
          await app.inject({
            method: 'POST',
            url: '/api/typeahead/instances',
            headers: { authorization: adminAuth },
            payload: { id, name: id },
          });
        }
        await createUser(app, 'mira', 'merchandiser', { typeaheadInstances: ['mine'] });
        const { cookie, csrfToken } = await signIn(app, 'mira');
        const patch = (url: string, headers: Record<string, string>) =>
          app.inject({ method: 'PATCH', url, headers, payload: { add: { included: ['boots'] } } });
        const terms = '/api/typeahead/instances/mine/terms';
        assert.equal((await patch(terms, { cookie })).statusCode, 403);
        assert.equal((await patch(terms, { cookie, 'x-csrf-token': csrfToken })).statusCode, 200);
        const scoped = await patch('/api/apps/shop/typeahead/instances/mine/terms', {
          cookie,
          'x-csrf-token': csrfToken,
        });
        assert.notEqual(scoped.statusCode, 403);
        const theirs = await patch('/api/typeahead/instances/theirs/terms', {
          cookie,
          'x-csrf-token': csrfToken,
        });
        assert.equal(theirs.statusCode, 403);
        const got = await app.inject({ url: '/api/typeahead/instances/theirs/terms', headers: { cookie } });
        assert.equal(got.statusCode, 200, 'reads are open');
      },
    );

    contract('signing out ends the session and removes the cookie', async (t) => {
      const { app } = await build(t, engine);
      const { cookie, csrfToken } = await signIn(app, 'admin', ADMIN_PASSWORD);
      const noToken = await app.inject({ method: 'DELETE', url: '/api/session', headers: { cookie } });
      assert.equal(noToken.statusCode, 403);
      const out = await app.inject({
        method: 'DELETE',
        url: '/api/session',
        headers: { cookie, 'x-csrf-token': csrfToken },
      });
      assert.equal(out.statusCode, 204);
      assert.match(
        String(out.headers['set-cookie']),
        /^searchdeck_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict/,
      );
      const after = await app.inject({ url: '/api/session', headers: { cookie } });
      assert.equal(after.statusCode, 401);
      assert.equal(after.headers['www-authenticate'], 'Session realm="searchdeck"');
      assert.equal((await app.inject({ url: '/api/studios', headers: { cookie } })).statusCode, 401);
    });

    test('a session unused for the idle time ends; one in use stays', async (t) => {
      let now = new Date('2026-11-24T08:00:00Z');
      const { app } = await build(t, engine, {
        now: () => now,
        env: { SEARCHDECK_SESSION_IDLE_MINUTES: '30' },
      });
      const { cookie } = await signIn(app, 'admin', ADMIN_PASSWORD);
      for (let i = 0; i < 3; i++) {
        now = new Date(now.getTime() + 20 * 60_000);
        assert.equal((await app.inject({ url: '/api/session', headers: { cookie } })).statusCode, 200);
      }
      now = new Date(now.getTime() + 30 * 60_000);
      assert.equal((await app.inject({ url: '/api/session', headers: { cookie } })).statusCode, 401);
    });

    test('a session used every 20 s outlives an idle time of 1 minute; it ends a minute after its last use', async (t) => {
      let now = new Date('2026-11-24T08:00:00Z');
      const { app } = await build(t, engine, {
        now: () => now,
        env: { SEARCHDECK_SESSION_IDLE_MINUTES: '1' },
      });
      const { cookie } = await signIn(app, 'admin', ADMIN_PASSWORD);
      const ask = () => app.inject({ url: '/api/session', headers: { cookie } });
      for (let i = 1; i <= 15; i++) {
        now = new Date(now.getTime() + 20_000);
        assert.equal((await ask()).statusCode, 200, `after ${i * 20} s`);
      }
      // Written at most 6 s (a tenth of the idle time) behind: still there 53 s after the last use.
      now = new Date(now.getTime() + 53_000);
      assert.equal((await ask()).statusCode, 200);
      now = new Date(now.getTime() + 60_000);
      assert.equal((await ask()).statusCode, 401);
    });

    test('a session ends SEARCHDECK_SESSION_MAX_HOURS after signing in, even in use', async (t) => {
      let now = new Date('2026-11-24T08:00:00Z');
      const { app, store } = await build(t, engine, {
        now: () => now,
        env: { SEARCHDECK_SESSION_MAX_HOURS: '1' },
      });
      const { cookie } = await signIn(app, 'admin', ADMIN_PASSWORD);
      const ask = () => app.inject({ url: '/api/studios', headers: { cookie } });
      for (let minute = 10; minute < 60; minute += 10) {
        now = new Date(Date.parse('2026-11-24T08:00:00Z') + minute * 60_000);
        assert.equal((await ask()).statusCode, 200, `after ${minute} minutes`);
      }
      now = new Date('2026-11-24T08:59:59.999Z');
      assert.equal((await ask()).statusCode, 200);
      now = new Date('2026-11-24T09:00:00Z');
      const ended = await ask();
      assert.equal(ended.statusCode, 401);
      assert.equal(ended.headers['www-authenticate'], 'Session realm="searchdeck"');
      assert.equal((await store.db.selectFrom('user_session').selectAll().execute()).length, 0);
    });

    test('the maximum lifetime is 7 days by default; signing in drops sessions older', async (t) => {
      let now = new Date('2026-11-24T08:00:00Z');
      const { app, store } = await build(t, engine, { now: () => now });
      const { cookie } = await signIn(app, 'admin', ADMIN_PASSWORD);
      // Used every 4 hours, never idle for the default 8.
      for (let hours = 4; hours < 168; hours += 4) {
        now = new Date(Date.parse('2026-11-24T08:00:00Z') + hours * 3_600_000);
        assert.equal((await app.inject({ url: '/api/session', headers: { cookie } })).statusCode, 200);
      }
      now = new Date('2026-12-01T08:00:00Z');
      await signIn(app, 'admin', ADMIN_PASSWORD);
      assert.equal((await store.db.selectFrom('user_session').selectAll().execute()).length, 1);
      assert.equal((await app.inject({ url: '/api/session', headers: { cookie } })).statusCode, 401);
    });

    test('signing in drops the sessions that have been idle too long', async (t) => {
      let now = new Date('2026-11-24T08:00:00Z');
      const { app, store } = await build(t, engine, { now: () => now });
      await signIn(app, 'admin', ADMIN_PASSWORD);
      now = new Date(now.getTime() + 9 * 3_600_000);
      await signIn(app, 'admin', ADMIN_PASSWORD);
      assert.equal((await store.db.selectFrom('user_session').selectAll().execute()).length, 1);
    });

    test('the idle time is 8 hours by default', async (t) => {
      let now = new Date('2026-11-24T08:00:00Z');
      const { app } = await build(t, engine, { now: () => now });
      const { cookie } = await signIn(app, 'admin', ADMIN_PASSWORD);
      now = new Date(now.getTime() + 8 * 3_600_000 - 1000);
      assert.equal((await app.inject({ url: '/api/session', headers: { cookie } })).statusCode, 200);
      now = new Date(now.getTime() + 8 * 3_600_000);
      assert.equal((await app.inject({ url: '/api/session', headers: { cookie } })).statusCode, 401);
    });

    test("a user's sessions end when the user is deleted or the password changes", async (t) => {
      const { app } = await build(t, engine);
      await createUser(app, 'mira', 'viewer');
      await createUser(app, 'ola', 'viewer');
      const mira = await signIn(app, 'mira');
      const ola = await signIn(app, 'ola');
      const changed = await app.inject({
        method: 'PATCH',
        url: '/api/users/mira',
        headers: { authorization: adminAuth },
        payload: { password: 'another-password' },
      });
      assert.equal(changed.statusCode, 200);
      assert.equal(
        (await app.inject({ url: '/api/session', headers: { cookie: mira.cookie } })).statusCode,
        401,
      );
      assert.equal(
        (await app.inject({ url: '/api/session', headers: { cookie: ola.cookie } })).statusCode,
        200,
      );
      await signIn(app, 'mira', 'another-password');
      const deleted = await app.inject({
        method: 'DELETE',
        url: '/api/users/ola',
        headers: { authorization: adminAuth },
      });
      assert.equal(deleted.statusCode, 204);
      assert.equal(
        (await app.inject({ url: '/api/session', headers: { cookie: ola.cookie } })).statusCode,
        401,
      );
    });

    test('set-password changes the admin password and ends the admin sessions', async (t) => {
      const { app, store } = await build(t, engine);
      const { cookie } = await signIn(app, 'admin', ADMIN_PASSWORD);
      await setAdminPassword(store.db, 'a-new-admin-password');
      assert.equal((await app.inject({ url: '/api/session', headers: { cookie } })).statusCode, 401);
      await signIn(app, 'admin', 'a-new-admin-password');
    });

    test('a session started on one node is accepted and ended on another', async (t) => {
      const [a, b] = await buildNodes(t, engine, 2);
      const { cookie, csrfToken } = await signIn(a!.app, 'admin', ADMIN_PASSWORD);
      assert.equal((await b!.app.inject({ url: '/api/session', headers: { cookie } })).statusCode, 200);
      const out = await b!.app.inject({
        method: 'DELETE',
        url: '/api/session',
        headers: { cookie, 'x-csrf-token': csrfToken },
      });
      assert.equal(out.statusCode, 204);
      assert.equal((await a!.app.inject({ url: '/api/session', headers: { cookie } })).statusCode, 401);
    });

    test('only the hash of the session id is stored', async (t) => {
      const { app, store } = await build(t, engine);
      const { cookie } = await signIn(app, 'admin', ADMIN_PASSWORD);
      const id = cookie.split('=')[1] ?? '';
      const rows = await store.db.selectFrom('user_session').select('id_hash').execute();
      assert.equal(rows.length, 1);
      assert.notEqual(rows[0]?.id_hash, id);
    });

    test('failed sign-ins count against the same limit as Basic auth', async (t) => {
      const { app } = await build(t, engine);
      const client = '203.0.113.9';
      for (let i = 0; i < 10; i++) {
        const failed = await app.inject({
          method: 'POST',
          url: '/api/session',
          remoteAddress: client,
          payload: { username: i % 2 ? 'admin' : 'nobody', password: `wrong${i}` },
        });
        assert.equal(failed.statusCode, 401);
        assert.equal(failed.headers['www-authenticate'], 'Session realm="searchdeck"');
        assert.equal(failed.headers['set-cookie'], undefined);
      }
      const blocked = await app.inject({
        method: 'POST',
        url: '/api/session',
        remoteAddress: client,
        payload: { username: 'admin', password: ADMIN_PASSWORD },
      });
      assert.equal(blocked.statusCode, 429);
      assert.ok(Number(blocked.headers['retry-after']) > 0);
      const basic = await app.inject({
        url: '/api/links',
        remoteAddress: client,
        headers: { authorization: adminAuth },
      });
      assert.equal(basic.statusCode, 429);
    });

    contract('a malformed sign-in is a 400 and signs nobody in', async (t) => {
      const { app } = await build(t, engine);
      for (const payload of [{}, { username: 'admin' }, { username: '', password: 'x' }, 'not json']) {
        const response = await app.inject({
          method: 'POST',
          url: '/api/session',
          payload: payload as object,
        });
        assert.ok(
          [400, 415].includes(response.statusCode),
          `${JSON.stringify(payload)}: ${response.statusCode}`,
        );
        assert.equal(response.headers['set-cookie'], undefined);
      }
      assert.equal(PASSWORD.length >= 8, true);
    });
  });
}
