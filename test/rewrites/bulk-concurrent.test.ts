// Two bulk requests over the same rewrites in opposite orders, at once: both are applied
// whole (on PostgreSQL they queue on the rewrites' row locks instead of deadlocking).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { build, engines, skipReason } from '../helpers/app.js';
import { call, REWRITES_ONLY, studioWithToken } from './api.js';

const REWRITES = 100;

for (const engine of engines) {
  describe(`concurrent rewrite bulk requests on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('over the same rewrites in opposite orders both succeed, each item counted once', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop', REWRITES_ONLY);
      const create = Array.from({ length: REWRITES }, (_, i) => ({
        type: 'misspelling',
        misspelling: `word${i}`,
        correction: `fixed${i}`,
      }));
      const made = await call(app, access, 'POST', '/query-rewrites/bulk', { create });
      const ids = made.json<{ created: string[] }>().created;
      assert.equal(ids.length, REWRITES);

      for (let round = 0; round < 3; round++) {
        const update = (order: string[], label: string) =>
          order.map((id) => {
            const i = ids.indexOf(id);
            return { id, type: 'misspelling', misspelling: `word${i}`, correction: `${label}${round}x${i}` };
          });
        const answers = await Promise.all([
          call(app, access, 'POST', '/query-rewrites/bulk', { update: update(ids, 'forward') }),
          call(app, access, 'POST', '/query-rewrites/bulk', {
            update: update([...ids].reverse(), 'backward'),
          }),
        ]);
        for (const answer of answers) {
          const result = answer.json<{ counts: Record<string, number>; errors: unknown[] }>();
          assert.deepEqual(result.counts, {
            created: 0,
            updated: REWRITES,
            deleted: 0,
            published: 0,
            failed: 0,
          });
          assert.deepEqual(result.errors, []);
        }
      }
    });
  });
}
