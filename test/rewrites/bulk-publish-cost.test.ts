// What a bulk publish may cost: its loop check looks at the edges it changes, not the whole
// set once per item, and a request whose check would pass the bound is refused whole. The
// file takes seconds (most on PostgreSQL): writing hundreds of 60-word rewrites is its point.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { adminAuth, build, engines, skipReason } from '../helpers/app.js';
import type { StudioAccess } from '../rules/api.js';
import { call, REWRITES_ONLY, studioWithToken } from './api.js';

const LETTERS = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** Misspellings of 60 one-letter words each, corrected to words of their own: no loop. */
function misspellings(count: number) {
  return Array.from({ length: count }, (_, i) => ({
    type: 'misspelling',
    misspelling: Array.from({ length: 60 }, (_, w) => LETTERS[(w * 7 + i * 13) % 36]).join(' '),
    correction: `fixed${i}`,
  }));
}

async function created(app: FastifyInstance, access: StudioAccess, count: number): Promise<string[]> {
  const made = await call(app, access, 'POST', '/query-rewrites/bulk', { create: misspellings(count) });
  return made.json<{ created: string[] }>().created;
}

/** Another studio's listing and an admin read, asked while the bulk runs. */
function otherWork(app: FastifyInstance, other: StudioAccess) {
  return Promise.all([
    app.inject({ url: '/query-rewrites', headers: other.headers }),
    app.inject({ url: '/api/studios', headers: { authorization: adminAuth } }),
  ]);
}

for (const engine of engines) {
  describe(`the cost of a bulk publish on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('a hundred misspellings of one-letter words publish in one bulk, others served meanwhile', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop', REWRITES_ONLY);
      const other = await studioWithToken(app, 'other', REWRITES_ONLY);
      const ids = await created(app, access, 100);
      const [bulk, others] = await Promise.all([
        app.inject({
          method: 'POST',
          url: '/query-rewrites/bulk',
          headers: access.headers,
          payload: { publish: ids },
        }),
        otherWork(app, other),
      ]);
      assert.equal(bulk.statusCode, 200, bulk.body);
      assert.deepEqual(bulk.json().counts, { created: 0, updated: 0, deleted: 0, published: 100, failed: 0 });
      assert.deepEqual(
        others.map((answer) => answer.statusCode),
        [200, 200],
      );
    });

    test('a bulk whose loop check would pass the bound is refused whole, and changes nothing', async (t) => {
      // 200 such rewrites take about 390,000 steps of the check: past the bound of 250,000.
      // Before the bound the request ran for minutes, holding the database all along.
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop', REWRITES_ONLY);
      const other = await studioWithToken(app, 'other', REWRITES_ONLY);
      const ids = await created(app, access, 200);
      const [bulk, others] = await Promise.all([
        app.inject({
          method: 'POST',
          url: '/query-rewrites/bulk',
          headers: access.headers,
          payload: {
            update: [{ id: ids[0], type: 'misspelling', misspelling: 'changed', correction: 'fixed' }],
            publish: ids,
          },
        }),
        otherWork(app, other),
      ]);
      assert.equal(bulk.statusCode, 400, bulk.body);
      assert.equal(bulk.json().code, 'limit-exceeded');
      assert.match(bulk.json().message, /rewrite loops would take over 250,000 steps/);
      assert.equal(bulk.json().details.limit, 250_000);
      assert.deepEqual(
        others.map((answer) => answer.statusCode),
        [200, 200],
      );
      const published = await call(app, access, 'GET', '/query-rewrites?published=true');
      assert.equal(published.json().page.totalElements, 0);
      const first = await call(app, access, 'GET', `/query-rewrites/${ids[0]}`);
      assert.notEqual(first.json().misspelling, 'changed', 'the update of the refused request is undone');
      // Published in smaller requests, the same rewrites pass.
      for (let i = 0; i < ids.length; i += 100) {
        const part = await call(app, access, 'POST', '/query-rewrites/bulk', {
          publish: ids.slice(i, i + 100),
        });
        assert.equal(part.json().counts.published, 100);
      }
    });
  });
}
