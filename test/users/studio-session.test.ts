import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { ADMIN_PASSWORD, adminAuth, build, contractTest, engines, skipReason } from '../helpers/app.js';
import { minimalBodies } from '../rules/fixtures.js';
import { createUser, signIn } from './helpers.js';

const misspelling = { type: 'misspelling', misspelling: 'lapotp', correction: 'laptop' };

for (const engine of engines) {
  describe(`the Rules API of a studio through a console session on ${engine}`, {
    skip: await skipReason(engine),
  }, () => {
    const contract = contractTest(engine);
    contract(
      'a merchandiser edits the rules and rewrites of a listed studio, named as the user',
      async (t) => {
        const { app } = await build(t, engine);
        for (const id of ['shop', 'other']) {
          const created = await app.inject({
            method: 'POST',
            url: '/api/studios',
            headers: { authorization: adminAuth },
            payload: { id, name: id },
          });
          assert.equal(created.statusCode, 201);
        }
        await createUser(app, 'mira', 'merchandiser', { studios: ['shop'] });
        const { cookie, csrfToken } = await signIn(app, 'mira');
        const headers = { cookie, 'x-csrf-token': csrfToken };

        const rule = await app.inject({
          method: 'POST',
          url: '/studios/shop/em-rules',
          headers,
          payload: minimalBodies.blockList,
        });
        assert.equal(rule.statusCode, 201, rule.body);
        assert.equal(rule.json().createdBy, 'user:mira');
        assert.equal(rule.json().lastModifiedBy, 'user:mira');
        const rewrite = await app.inject({
          method: 'POST',
          url: '/studios/shop/query-rewrites',
          headers,
          payload: misspelling,
        });
        assert.equal(rewrite.statusCode, 201, rewrite.body);
        assert.equal(rewrite.json().createdBy, 'user:mira');
        const listed = await app.inject({ url: '/studios/shop/em-rules', headers: { cookie } });
        assert.equal(listed.statusCode, 200);

        const noToken = await app.inject({
          method: 'POST',
          url: '/studios/shop/em-rules',
          headers: { cookie },
          payload: minimalBodies.blockList,
        });
        assert.equal(noToken.statusCode, 403, 'a change without the CSRF token');
        const elsewhere = await app.inject({ url: '/studios/other/em-rules', headers: { cookie } });
        assert.equal(elsewhere.statusCode, 403, 'a studio not listed on the user');
        const unscoped = await app.inject({ url: '/em-rules', headers: { cookie } });
        assert.equal(unscoped.statusCode, 401, 'the path without a studio needs a bearer token');
      },
    );

    contract('a viewer reads a studio and changes nothing; an admin changes any studio', async (t) => {
      const { app } = await build(t, engine);
      await app.inject({
        method: 'POST',
        url: '/api/studios',
        headers: { authorization: adminAuth },
        payload: { id: 'shop', name: 'Shop' },
      });
      await createUser(app, 'vic', 'viewer');
      const viewer = await signIn(app, 'vic');
      assert.equal(
        (await app.inject({ url: '/studios/shop/em-rules', headers: { cookie: viewer.cookie } })).statusCode,
        200,
      );
      const refused = await app.inject({
        method: 'POST',
        url: '/studios/shop/em-rules',
        headers: { cookie: viewer.cookie, 'x-csrf-token': viewer.csrfToken },
        payload: minimalBodies.blockList,
      });
      assert.equal(refused.statusCode, 403);
      const admin = await signIn(app, 'admin', ADMIN_PASSWORD);
      const made = await app.inject({
        method: 'POST',
        url: '/studios/shop/em-rules',
        headers: { cookie: admin.cookie, 'x-csrf-token': admin.csrfToken },
        payload: minimalBodies.blockList,
      });
      assert.equal(made.statusCode, 201);
      assert.equal(made.json().createdBy, 'user:admin');
      const missing = await app.inject({
        url: '/studios/nowhere/em-rules',
        headers: { cookie: admin.cookie },
      });
      assert.equal(missing.statusCode, 404);
    });

    contract('the history has one spelling per person, the first user being admin every way', async (t) => {
      const { app } = await build(t, engine);
      const created = await app.inject({
        method: 'POST',
        url: '/api/studios',
        headers: { authorization: adminAuth },
        payload: { id: 'shop', name: 'Shop' },
      });
      assert.equal(created.statusCode, 201);
      await createUser(app, 'mira', 'merchandiser', { studios: ['shop'] });
      for (const [username, password] of [
        ['admin', ADMIN_PASSWORD],
        ['mira', undefined],
      ] as const) {
        const { cookie, csrfToken } = await signIn(app, username, password);
        const made = await app.inject({
          method: 'POST',
          url: '/studios/shop/em-rules',
          headers: { cookie, 'x-csrf-token': csrfToken },
          payload: { ...minimalBodies.blockList, name: `Block of ${username}` },
        });
        assert.equal(made.statusCode, 201, made.body);
      }
      const events = await app.inject({
        url: '/api/history?size=100',
        headers: { authorization: adminAuth },
      });
      const actors = (events.json().content as { actor: string; action: string; object: string }[]).map(
        (e) => `${e.actor} ${e.action} ${e.object.split(':')[0]}`,
      );
      // The studio by Basic, the admin's rule by session, mira's rule by session, mira herself.
      assert.deepEqual(actors.sort(), [
        'admin create rule',
        'admin create studio',
        'admin create user',
        'user:mira create rule',
      ]);
      const byAdmin = await app.inject({
        url: '/api/history?actor=admin',
        headers: { authorization: adminAuth },
      });
      assert.equal(byAdmin.json().page.totalElements, 3);
    });
  });
}
