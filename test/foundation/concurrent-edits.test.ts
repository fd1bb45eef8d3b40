// Many edits and deletes of one resource at once, on one node and spread over two nodes of one
// database: each answers what happened to it, never a 500 or a spurious conflict.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { adminAuth, engines, skipReason } from '../helpers/app.js';
import { atOnce, nodeSetups } from '../helpers/concurrency.js';
import { createRule, studioWithToken } from '../rules/api.js';

const admin = { authorization: adminAuth };

for (const engine of engines) {
  describe(`concurrent edits and deletes on ${engine}`, { skip: await skipReason(engine) }, () => {
    for (const [setup, nodesOf] of nodeSetups(engine)) {
      test(`answers 200 to every one of concurrent publishes of one rule, with one live version (${setup})`, async (t) => {
        const built = await nodesOf(t);
        const nodes = built.map((n) => n.app);
        const access = await studioWithToken(nodes[0]!, 'shop');
        const rule = await createRule(nodes[0]!, access, {
          type: 'redirect',
          name: 'Go',
          url: 'https://shop.example.com/',
        });
        const outcome = await atOnce(nodes, 4, {
          method: 'POST',
          url: `/em-rules/${rule.id}/publish`,
          headers: access.headers,
        });
        assert.deepEqual(outcome.statuses, { 200: 4 });
        for (const response of outcome.responses) assert.equal(response.json().publishState, 'PUBLISHED');
        const stored = await built[0]!.store.db
          .selectFrom('rule')
          .select(['live_version', 'publish_state'])
          .where('id', '=', rule.id)
          .executeTakeFirstOrThrow();
        assert.deepEqual(stored, { live_version: 1, publish_state: 'PUBLISHED' });
      });

      test(`deletes a studio once under concurrent deletes: one 204, then 404 (${setup})`, async (t) => {
        const nodes = (await nodesOf(t)).map((n) => n.app);
        await studioWithToken(nodes[0]!, 'shop');
        const outcome = await atOnce(nodes, 8, {
          method: 'DELETE',
          url: '/api/studios/shop',
          headers: admin,
        });
        assert.deepEqual(outcome.statuses, { 204: 1, 404: 7 });
        for (const response of outcome.responses.filter((r) => r.statusCode === 404)) {
          assert.equal(response.json().code, 'not-found');
        }
      });

      test(`deletes a draft rule once under concurrent deletes: one 204, then 404 (${setup})`, async (t) => {
        const nodes = (await nodesOf(t)).map((n) => n.app);
        const access = await studioWithToken(nodes[0]!, 'shop');
        const rule = await createRule(nodes[0]!, access, {
          type: 'redirect',
          name: 'Go',
          url: 'https://shop.example.com/',
        });
        const outcome = await atOnce(nodes, 8, {
          method: 'DELETE',
          url: `/em-rules/${rule.id}`,
          headers: access.headers,
        });
        assert.deepEqual(outcome.statuses, { 204: 1, 404: 7 });
      });
    }
  });
}
