import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { adminAuth, build, contractTest, engines, skipReason } from '../helpers/app.js';
import { basic, createUser, PASSWORD } from './helpers.js';

const ALL = ['admin', 'merchandiser', 'viewer'];
const LISTED = 'listed-instance';

interface Operation {
  'x-roles'?: string[];
  security?: unknown[];
}

for (const engine of engines) {
  describe(`roles on every route of the Administrative API on ${engine}`, {
    skip: await skipReason(engine),
  }, () => {
    const contract = contractTest(engine);
    contract('every /api operation states its roles, and each role gets the documented answer', async (t) => {
      const { app } = await build(t, engine);
      await createUser(app, 'merch', 'merchandiser', { studios: ['shop'], typeaheadInstances: [LISTED] });
      await createUser(app, 'view', 'viewer');
      const document = (await app.inject({ url: '/api/openapi.json' })).json() as {
        paths: Record<string, Record<string, Operation>>;
      };
      const credentials: Record<string, string> = {
        admin: adminAuth,
        merchandiser: basic('merch', PASSWORD),
        viewer: basic('view', PASSWORD),
      };
      let walked = 0;
      for (const [path, operations] of Object.entries(document.paths)) {
        if (!path.startsWith('/api/') || path.startsWith('/api/apps/')) continue;
        for (const [method, operation] of Object.entries(operations)) {
          if (path === '/api/session') {
            assert.equal(operation['x-roles'], undefined, 'signing in is for everyone');
            continue;
          }
          const roles = operation['x-roles'];
          assert.ok(Array.isArray(roles), `${method} ${path} states its roles`);
          const scoped = roles.some((role) => role.startsWith('merchandiser ('));
          for (const role of ALL) {
            // A scoped route is tried by the merchandiser on a listed instance and an unlisted one.
            const attempts = role === 'merchandiser' && scoped ? [LISTED, 'unlisted'] : ['x'];
            for (const id of attempts) {
              const url = path.replace(/\{[^}]+\}/g, id);
              const response = await app.inject({
                method: method.toUpperCase() as 'GET',
                url,
                headers: { authorization: credentials[role] ?? '' },
                ...(['post', 'put', 'patch'].includes(method) ? { payload: {} } : {}),
              });
              const allowed = roles.includes(role) || (role === 'merchandiser' && scoped && id === LISTED);
              const what = `${role} ${method.toUpperCase()} ${url}: ${response.statusCode} ${response.body.slice(0, 200)}`;
              if (allowed) assert.notEqual(response.statusCode, 403, what);
              else assert.equal(response.statusCode, 403, what);
              assert.ok(response.statusCode < 500, what);
              walked++;
            }
          }
          if (roles.length === ALL.length)
            assert.ok(['get', 'head'].includes(method) || roles.includes('viewer'));
        }
      }
      assert.ok(walked > 60, `walked ${walked} requests`);
    });

    contract('reads are open to every role; writes are for admins', async (t) => {
      const { app } = await build(t, engine);
      await createUser(app, 'view', 'viewer');
      const viewer = basic('view', PASSWORD);
      assert.equal(
        (await app.inject({ url: '/api/studios', headers: { authorization: viewer } })).statusCode,
        200,
      );
      const write = await app.inject({
        method: 'POST',
        url: '/api/studios',
        headers: { authorization: viewer },
        payload: { id: 'shop', name: 'Shop' },
      });
      assert.equal(write.statusCode, 403);
      assert.equal(write.json().code, 'forbidden');
      assert.equal(
        (await app.inject({ url: '/api/users', headers: { authorization: viewer } })).statusCode,
        403,
      );
      const none = await app.inject({ url: '/api/studios/shop', headers: { authorization: adminAuth } });
      assert.equal(none.statusCode, 404, 'the refused write changed nothing');
    });

    contract('a merchandiser edits the terms of a listed typeahead instance only', async (t) => {
      const { app } = await build(t, engine);
      for (const id of ['mine', 'theirs']) {
        const created = await app.inject({
          method: 'POST',
          url: '/api/typeahead/instances',
          headers: { authorization: adminAuth },
          payload: { id, name: id },
        });
        assert.equal(created.statusCode, 201, created.body);
      }
      await createUser(app, 'merch', 'merchandiser', { typeaheadInstances: ['mine'] });
      const merch = basic('merch', PASSWORD);
      const terms = (id: string) =>
        app.inject({
          method: 'PATCH',
          url: `/api/typeahead/instances/${id}/terms`,
          headers: { authorization: merch },
          payload: { add: { included: ['red shoes'] } },
        });
      const mine = await terms('mine');
      assert.equal(mine.statusCode, 200, mine.body);
      assert.equal((await terms('theirs')).statusCode, 403);
      const rename = await app.inject({
        method: 'PATCH',
        url: '/api/typeahead/instances/mine',
        headers: { authorization: merch },
        payload: { name: 'renamed' },
      });
      assert.equal(rename.statusCode, 403);
    });
  });
}
