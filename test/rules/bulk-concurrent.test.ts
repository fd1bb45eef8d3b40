// Two bulk operations over the same rules in opposite orders, at once: on PostgreSQL their
// chunks lock the rows in opposite orders and one may be chosen as a deadlock victim; the
// chunk is then run again, so both operations end DONE with every item counted once.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { build, engines, skipReason } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';
import { type StudioAccess, studioWithToken } from './api.js';

const RULES = 100;
const block = { type: 'blockList', fieldName: 'id', fieldValues: ['P1'] };

async function bulk(
  app: FastifyInstance,
  access: StudioAccess,
  payload: Record<string, unknown>,
): Promise<string> {
  const started = await app.inject({
    method: 'POST',
    url: '/em-rules/bulk',
    headers: access.headers,
    payload,
  });
  assert.equal(started.statusCode, 202, started.body);
  return started.json<{ operationId: string }>().operationId;
}

/** The operation's status once it has ended, DONE or FAILED. */
function finished(app: FastifyInstance, access: StudioAccess, operationId: string) {
  return eventually(
    async () => {
      const status = (
        await app.inject({ url: `/em-rules/bulk/${operationId}`, headers: access.headers })
      ).json<{ status: string; counts: Record<string, number>; errors: unknown[] }>();
      return (status.status === 'DONE' || status.status === 'FAILED') && status;
    },
    // Every 20 ms rather than 10: the two operations under test share the event loop with the polls.
    { within: 60_000, every: 20, message: `bulk operation ${operationId} did not end` },
  );
}

for (const engine of engines) {
  describe(`concurrent bulk operations on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('over the same rules in opposite orders both end DONE, each item counted once', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const create = Array.from({ length: RULES }, (_, i) => ({
        ...block,
        name: `Rule ${i}`,
        externalId: `r${i}`,
      }));
      const seeded = await finished(app, access, await bulk(app, access, { create }));
      assert.equal(seeded.status, 'DONE', JSON.stringify(seeded));
      const ids = Array.from({ length: RULES }, (_, i) => `r${i}`);

      for (let round = 0; round < 3; round++) {
        const forward = ids.map((id) => ({ ...block, id, name: `Forward ${round} ${id}` }));
        const backward = [...ids].reverse().map((id) => ({ ...block, id, name: `Backward ${round} ${id}` }));
        const operations = await Promise.all([
          bulk(app, access, { update: forward, publish: ids }),
          bulk(app, access, { update: backward, publish: [...ids].reverse() }),
        ]);
        const statuses = await Promise.all(operations.map((id) => finished(app, access, id)));
        for (const status of statuses) {
          assert.equal(status.status, 'DONE', JSON.stringify(status));
          assert.deepEqual(status.counts, {
            created: 0,
            updated: RULES,
            deleted: 0,
            published: RULES,
            failed: 0,
          });
          assert.deepEqual(status.errors, []);
        }
      }
      // Every rule holds one of the two names of the last round, published.
      const listed = await app.inject({ url: `/em-rules?size=${RULES}`, headers: access.headers });
      const rules = listed.json<{ content: Array<{ name: string; publishState: string }> }>().content;
      assert.equal(rules.length, RULES);
      for (const rule of rules) {
        assert.match(rule.name, /^(Forward|Backward) 2 r\d+$/);
        assert.equal(rule.publishState, 'PUBLISHED');
      }
    });
  });
}
