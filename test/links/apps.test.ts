// `GET /api/apps`: the apps named in the link graph, read by walking the partial indexes of
// `app:` link ends.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import { selectAppNames } from '../../src/links/repository.js';
import { listApps } from '../../src/links/service.js';
import { call } from '../helpers/api.js';
import { build, contractTest, engines, freshStore, skipReason } from '../helpers/app.js';

for (const engine of engines) {
  describe(`apps on ${engine}`, { skip: await skipReason(engine) }, () => {
    const contract = contractTest(engine);
    test('lists each app named at either end of a link once, in id order', async (t) => {
      const { app } = await build(t, engine);
      assert.deepEqual((await call(app, 'GET', '/api/apps')).body, []);

      const links = [
        { subject: 'search-cluster:prod', object: 'app:shop', linkType: 'inContextOf' },
        { subject: 'collection:products', object: 'app:shop', linkType: 'inContextOf' },
        { subject: 'app:blog', object: 'datasource:web', linkType: 'dependsOn' },
        { subject: 'app:Outlet-2', object: 'app:blog', linkType: 'relatesTo' },
        // Not apps: another type, another case, and names no app id can have.
        { subject: 'apple:pie', object: 'APP:shouty', linkType: 'relatesTo' },
        { subject: 'app:two words', object: 'app:..', linkType: 'relatesTo' },
      ];
      for (const link of links) assert.equal((await call(app, 'PUT', '/api/links', link)).status, 200);
      // A link written in an app's scope puts both ends in its context.
      const scoped = { subject: 'typeahead:shop-en', object: 'studio:acme', linkType: 'relatesTo' };
      assert.equal((await call(app, 'PUT', '/api/apps/outlet/links', scoped)).status, 200);

      const listed = await call(app, 'GET', '/api/apps');
      assert.equal(listed.status, 200);
      assert.deepEqual(
        listed.body,
        ['Outlet-2', 'blog', 'outlet', 'shop'].map((id) => ({ id, name: id })),
      );
    });

    test('an app leaves the list with its last link', async (t) => {
      const { app } = await build(t, engine);
      const link = { subject: 'collection:products', object: 'app:shop', linkType: 'inContextOf' };
      await call(app, 'PUT', '/api/links', link);
      assert.deepEqual((await call(app, 'GET', '/api/apps')).body, [{ id: 'shop', name: 'shop' }]);
      const query = new URLSearchParams(link).toString();
      assert.equal((await call(app, 'DELETE', `/api/links?${query}`)).status, 204);
      assert.deepEqual((await call(app, 'GET', '/api/apps')).body, []);
    });

    contract('is listed at /api only, and only to a signed-in user', async (t) => {
      const { app } = await build(t, engine);
      assert.equal((await call(app, 'GET', '/api/apps/shop/apps')).status, 404);
      const anonymous = await app.inject({ method: 'GET', url: '/api/apps' });
      assert.equal(anonymous.statusCode, 401);
      assert.equal(anonymous.json().status, 401);
    });

    test('the walk finds exactly the app ends a scan of every link finds', async (t) => {
      const fresh = await freshStore(engine);
      t.after(() => fresh.close());
      const db = fresh.store.db;
      const name = fc.oneof(
        fc
          .constantFrom('app', 'apple', 'APP', 'ap', 'apps')
          .chain((type) => fc.stringMatching(/^[a-c:_%.-]{0,3}$/).map((id) => `${type}:${id}`)),
        fc.constantFrom('app:', 'app', 'app:%', 'app:_x'),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(fc.record({ subject: name, object: name }), {
            maxLength: 25,
            selector: (l) => `${l.subject}\u0000${l.object}`,
          }),
          async (links) => {
            await db.deleteFrom('link').execute();
            for (const { subject, object } of links) {
              await db
                .insertInto('link')
                .values({
                  subject,
                  object,
                  link_type: 'relatesTo',
                  originator: 'test',
                  given_reversed: 0,
                  created_at: '2026-01-01T00:00:00Z',
                })
                .execute();
            }
            const ends = new Set(links.flatMap((l) => [l.subject, l.object]));
            const expected = [...ends].filter((end) => end.startsWith('app:')).sort();
            const walked = (await selectAppNames(db)).filter((end) => end.startsWith('app:')).sort();
            assert.deepEqual(walked, expected);
            const ids = (await listApps(db)).map((a) => a.id);
            assert.deepEqual(
              ids,
              expected
                .map((end) => end.slice(4))
                .filter((id) => /^(?!\.{1,2}$)[A-Za-z0-9._-]+$/.test(id))
                .sort(),
            );
          },
        ),
        { numRuns: 40 },
      );
    });

    test('the walk reads the partial indexes, not the link table', async (t) => {
      const fresh = await freshStore(engine);
      t.after(() => fresh.close());
      const db = fresh.store.db;
      const step = sql`select min(object) from link where object like 'app:%' and object > 'app:a'`;
      if (engine === 'sqlite') {
        const plan = await sql<{ detail: string }>`explain query plan ${step}`.execute(db);
        assert.match(plan.rows.map((r) => r.detail).join('\n'), /INDEX link_app_objects/);
      } else {
        // An empty table is cheapest to scan; the question is whether the index can serve.
        await db.connection().execute(async (connection) => {
          await sql`set enable_seqscan = off`.execute(connection);
          const plan = await sql<{ 'QUERY PLAN': string }>`explain ${step}`.execute(connection);
          await sql`reset enable_seqscan`.execute(connection);
          assert.match(plan.rows.map((r) => r['QUERY PLAN']).join('\n'), /link_app_objects/);
        });
      }
    });
  });
}
