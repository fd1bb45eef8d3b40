import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ensureAdminPassword } from '../../src/security/admin-credentials.js';
import * as usersMigration from '../../src/storage/migrations/0901_users.js';
import {
  ADMIN_PASSWORD,
  adminAuth,
  build,
  contractTest,
  engines,
  freshStore,
  skipReason,
} from '../helpers/app.js';
import { basic, PASSWORD } from './helpers.js';

const headers = { authorization: adminAuth };

for (const engine of engines) {
  describe(`users on ${engine}`, { skip: await skipReason(engine) }, () => {
    const contract = contractTest(engine);
    test('creates, reads, lists, changes and deletes a user; never answers a password or its hash', async (t) => {
      const { app } = await build(t, engine);
      const created = await app.inject({
        method: 'POST',
        url: '/api/users',
        headers,
        payload: { username: 'mira', password: PASSWORD, role: 'merchandiser', studios: ['shop', 'shop'] },
      });
      assert.equal(created.statusCode, 201, created.body);
      const user = created.json();
      assert.equal(user.role, 'merchandiser');
      assert.deepEqual(user.studios, ['shop']);
      assert.deepEqual(user.typeaheadInstances, []);
      assert.doesNotMatch(created.body, /password|scrypt/i);

      const again = await app.inject({
        method: 'POST',
        url: '/api/users',
        headers,
        payload: { username: 'mira', password: PASSWORD, role: 'viewer' },
      });
      assert.equal(again.statusCode, 409);
      assert.equal(again.json().code, 'conflict');

      const list = (await app.inject({ url: '/api/users', headers })).json();
      assert.deepEqual(
        list.map((u: { username: string; role: string }) => [u.username, u.role]),
        [
          ['admin', 'admin'],
          ['mira', 'merchandiser'],
        ],
      );
      assert.equal((await app.inject({ url: '/api/users/mira', headers })).json().username, 'mira');

      const changed = await app.inject({
        method: 'PATCH',
        url: '/api/users/mira',
        headers,
        payload: { role: 'viewer', typeaheadInstances: ['ta'] },
      });
      assert.equal(changed.statusCode, 200);
      assert.equal(changed.json().role, 'viewer');
      assert.deepEqual(changed.json().typeaheadInstances, ['ta']);
      assert.deepEqual(changed.json().studios, ['shop']);

      // Basic auth works for any user, with their role.
      const asMira = await app.inject({
        url: '/api/studios',
        headers: { authorization: basic('mira', PASSWORD) },
      });
      assert.equal(asMira.statusCode, 200);

      assert.equal((await app.inject({ method: 'DELETE', url: '/api/users/mira', headers })).statusCode, 204);
      assert.equal((await app.inject({ url: '/api/users/mira', headers })).statusCode, 404);
      assert.equal((await app.inject({ method: 'DELETE', url: '/api/users/mira', headers })).statusCode, 404);
      const gone = await app.inject({
        url: '/api/studios',
        remoteAddress: '198.51.100.77',
        headers: { authorization: basic('mira', PASSWORD) },
      });
      assert.equal(gone.statusCode, 401);
    });

    test('the history records user changes by who made them, without passwords', async (t) => {
      const { app } = await build(t, engine);
      const post = (payload: object) => app.inject({ method: 'POST', url: '/api/users', headers, payload });
      assert.equal((await post({ username: 'boss', password: PASSWORD, role: 'admin' })).statusCode, 201);
      const boss = { authorization: basic('boss', PASSWORD) };
      const made = await app.inject({
        method: 'POST',
        url: '/api/users',
        headers: boss,
        payload: { username: 'mira', password: PASSWORD, role: 'viewer' },
      });
      assert.equal(made.statusCode, 201);
      await app.inject({
        method: 'PATCH',
        url: '/api/users/mira',
        headers: boss,
        payload: { password: 'another-password' },
      });
      await app.inject({ method: 'DELETE', url: '/api/users/mira', headers });
      const events = await app.inject({ url: '/api/history?object=user:mira', headers });
      assert.equal(events.statusCode, 200, events.body);
      const list = events.json().content as Array<{ actor: string; action: string }>;
      assert.deepEqual(list.map((e) => [e.actor, e.action]).sort(), [
        ['admin', 'delete'],
        ['user:boss', 'create'],
        ['user:boss', 'update'],
      ]);
      assert.doesNotMatch(events.body, /another-password|a-user-password|scrypt/);
    });

    contract('bad input is a 400 with the common body and changes nothing', async (t) => {
      const { app } = await build(t, engine);
      const bad = [
        { username: 'x', password: 'short', role: 'viewer' },
        { username: 'x', password: PASSWORD, role: 'owner' },
        { username: '..', password: PASSWORD, role: 'viewer' },
        { username: 'a b', password: PASSWORD, role: 'viewer' },
        { username: 'x', password: PASSWORD, role: 'viewer', extra: 1 },
        { username: 'x', password: PASSWORD, role: 'viewer', studios: ['bad id'] },
        { password: PASSWORD, role: 'viewer' },
      ];
      for (const payload of bad) {
        const response = await app.inject({ method: 'POST', url: '/api/users', headers, payload });
        assert.equal(response.statusCode, 400, JSON.stringify(payload));
        assert.equal(response.json().code, 'invalid-body');
      }
      const empty = await app.inject({ method: 'PATCH', url: '/api/users/admin', headers, payload: {} });
      assert.equal(empty.statusCode, 400);
      assert.equal((await app.inject({ url: '/api/users', headers })).json().length, 1);
    });

    test('the first user stays: admin cannot be deleted or demoted', async (t) => {
      const { app } = await build(t, engine);
      const deleted = await app.inject({ method: 'DELETE', url: '/api/users/admin', headers });
      assert.equal(deleted.statusCode, 409);
      const demoted = await app.inject({
        method: 'PATCH',
        url: '/api/users/admin',
        headers,
        payload: { role: 'viewer' },
      });
      assert.equal(demoted.statusCode, 400);
      assert.equal((await app.inject({ url: '/api/users/admin', headers })).json().role, 'admin');
    });

    test('a new password takes effect at once and the old one stops working', async (t) => {
      const { app } = await build(t, engine);
      const changed = await app.inject({
        method: 'PATCH',
        url: '/api/users/admin',
        headers,
        payload: { password: 'the-new-admin-password' },
      });
      assert.equal(changed.statusCode, 200);
      const oldOne = await app.inject({ url: '/api/users', remoteAddress: '198.51.100.5', headers });
      assert.equal(oldOne.statusCode, 401);
      const newOne = await app.inject({
        url: '/api/users',
        headers: { authorization: basic('admin', 'the-new-admin-password') },
      });
      assert.equal(newOne.statusCode, 200);
    });

    test('the migration makes the stored admin password the first user', async (t) => {
      const fresh = await freshStore(engine);
      t.after(() => fresh.close());
      const db = fresh.store.db;
      // The database as it was before users: the admin hash in the settings table.
      await db.schema.dropTable('user_session').execute();
      await db.schema.dropTable('app_user').execute();
      await db
        .insertInto('setting')
        .values({ name: 'admin_password_hash', value: 'scrypt$stored' })
        .execute();
      await usersMigration.up(db as never);
      const rows = await db.selectFrom('app_user').selectAll().execute();
      assert.deepEqual(
        rows.map((r) => [r.username, r.role, r.password_hash]),
        [['admin', 'admin', 'scrypt$stored']],
      );
      const setting = await db.selectFrom('setting').selectAll().execute();
      assert.deepEqual(
        setting.filter((s) => s.name === 'admin_password_hash'),
        [],
      );
      // And the service keeps its password: a configured one replaces it as before.
      await ensureAdminPassword(db, ADMIN_PASSWORD);
      assert.match(
        (await db.selectFrom('app_user').select('password_hash').executeTakeFirstOrThrow()).password_hash,
        /^scrypt\$16384/,
      );
    });
  });
}
