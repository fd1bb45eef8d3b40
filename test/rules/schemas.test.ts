import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { build, contractTest, engines, skipReason } from '../helpers/app.js';
import { createRule, studioWithToken } from './api.js';

const block = { type: 'blockList', name: 'Block discontinued', fieldName: 'id', fieldValues: ['P1'] };
const banner = { type: 'banner', name: 'Summer', bannerUrl: 'https://shop.example/summer.png' };

for (const engine of engines) {
  describe(`wire schemas on ${engine}`, { skip: await skipReason(engine) }, () => {
    const contract = contractTest(engine);
    // Fastify's validator fills defaults into bodies and its serializer into answers;
    // type-specific defaults there would give a blockList a `boost`.
    contract('a rule is answered with its own type’s fields and defaults only', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const blocked = await createRule(app, access, block);
      const updated = await app.inject({
        method: 'PUT',
        url: `/em-rules/${blocked.id}`,
        headers: access.headers,
        payload: { name: 'Renamed', fieldName: 'id', fieldValues: ['P2'] },
      });
      assert.equal(updated.statusCode, 200, updated.body);
      for (const answer of [blocked, updated.json()]) {
        for (const field of ['boost', 'zone', 'url', 'bannerUrl', 'pinnedValues']) {
          assert.equal(field in answer, false, field);
        }
      }
      const shown = await createRule(app, access, banner);
      assert.equal(shown.zone, 'top');
      assert.equal('boost' in shown || 'fieldName' in shown, false);
    });

    contract('a body may carry an answer’s read-only fields back; an unknown member is named', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const created = await createRule(app, access, block);
      const got = await app.inject({
        url: `/em-rules/${created.id}?fields=CONFLICTS,TARGETED_DOCUMENTS`,
        headers: access.headers,
      });
      const answer = got.json();
      for (const field of ['id', 'publishState', 'liveContent', 'conflicts'])
        assert.ok(field in answer, field);
      const putBack = await app.inject({
        method: 'PUT',
        url: `/em-rules/${created.id}`,
        headers: access.headers,
        payload: answer,
      });
      assert.equal(putBack.statusCode, 200, putBack.body);

      const unknown = await app.inject({
        method: 'POST',
        url: '/em-rules',
        headers: access.headers,
        payload: { ...block, color: 'red' },
      });
      assert.equal(unknown.statusCode, 400);
      assert.ok(
        unknown.json().errors.some((error: { field: string }) => error.field === 'color'),
        unknown.body,
      );
    });
  });
}
