// The query endpoint with a console session (the console's query workbench): any signed-in
// user's session reads through a profile with GET; a POST needs the session's CSRF token;
// an ended session is refused.
import assert from 'node:assert/strict';
import { describe, type TestContext, test } from 'node:test';
import { ADMIN_PASSWORD, adminAuth, build, contractTest, engines, skipReason } from '../helpers/app.js';
import { createUser, signIn } from '../users/helpers.js';
import { startSelectSolr } from './select-solr.js';

/** A standalone cluster on a node playing Solr and a profile `shop/web` over it. */
async function withProfile(t: TestContext, engine: (typeof engines)[number]) {
  const { app } = await build(t, engine);
  const solr = await startSelectSolr();
  t.after(() => solr.close());
  for (const [url, payload] of [
    ['/api/apps/shop/searchCluster', { id: 'one', cloud: false, connectString: solr.baseUrl }],
    ['/api/apps/shop/query-profiles', { id: 'web', searchCluster: 'one', collection: 'products' }],
  ] as const) {
    const made = await app.inject({ method: 'POST', url, headers: { authorization: adminAuth }, payload });
    assert.equal(made.statusCode, 200, made.body);
  }
  return { app, solr };
}

for (const engine of engines) {
  describe(`query endpoint with a console session on ${engine}`, { skip: await skipReason(engine) }, () => {
    const contract = contractTest(engine);
    contract("a viewer's session queries through a profile and reads what searchdeck did", async (t) => {
      const { app, solr } = await withProfile(t, engine);
      await createUser(app, 'vera', 'viewer');
      const { cookie } = await signIn(app, 'vera');
      const answer = await app.inject({ url: '/api/apps/shop/query/web?q=kettle', headers: { cookie } });
      assert.equal(answer.statusCode, 200, answer.body);
      const body = answer.json();
      assert.equal(body.response.numFound, 1);
      assert.equal(body.fusion.query, 'kettle');
      assert.equal(solr.received.length, 1);
    });

    contract('a POST with a session needs its CSRF token', async (t) => {
      const { app } = await withProfile(t, engine);
      const { cookie, csrfToken } = await signIn(app, 'admin', ADMIN_PASSWORD);
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      const without = await app.inject({
        method: 'POST',
        url: '/api/apps/shop/query/web',
        headers: { cookie, ...form },
        payload: 'q=kettle',
      });
      assert.equal(without.statusCode, 403, without.body);
      const withToken = await app.inject({
        method: 'POST',
        url: '/api/apps/shop/query/web',
        headers: { cookie, 'x-csrf-token': csrfToken, ...form },
        payload: 'q=kettle',
      });
      assert.equal(withToken.statusCode, 200, withToken.body);
    });

    test('an ended session and a made-up cookie are refused', async (t) => {
      const { app } = await withProfile(t, engine);
      await createUser(app, 'vera', 'viewer');
      const { cookie, csrfToken } = await signIn(app, 'vera');
      const out = await app.inject({
        method: 'DELETE',
        url: '/api/session',
        headers: { cookie, 'x-csrf-token': csrfToken },
      });
      assert.equal(out.statusCode, 204, out.body);
      for (const sent of [cookie, 'searchdeck_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA']) {
        const answer = await app.inject({ url: '/api/apps/shop/query/web?q=a', headers: { cookie: sent } });
        assert.equal(answer.statusCode, 401, answer.body);
        assert.equal(answer.json().code, 'unauthorized');
      }
      const none = await app.inject({ url: '/api/apps/shop/query/web?q=a' });
      assert.equal(none.statusCode, 401);
    });
  });
}
