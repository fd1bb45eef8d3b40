import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { build, engines, skipReason } from '../helpers/app.js';
import { admin, createInstance, suggest } from './helpers.js';

const IDLE_MS = 60_000;

for (const engine of engines) {
  describe(`Idle suggestion indexes on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('drops an index unused for longer than the idle time and rebuilds it with the same answer', async (t) => {
      let nowMs = Date.parse('2026-03-01T12:00:00Z');
      const { app } = await build(t, engine, {
        now: () => new Date(nowMs),
        tuning: { typeaheadIdleMs: IDLE_MS },
      });
      const { registry } = app.parts.typeahead;
      const { id, embedToken } = await createInstance(app);
      await admin(app, 'PUT', `/instances/${id}/terms`, {
        included: ['Kettle', 'kettle pro', 'Électrique', 'toaster'],
        excluded: ['toaster'],
      });
      const first = await suggest(app, embedToken, 'prefix=k&limit=5');
      assert.deepEqual(first.body, ['Kettle', 'kettle pro']);
      await registry.sync();
      assert.equal(registry.stats.resident, 1);

      // Used, then left alone for less than the idle time: kept.
      nowMs += IDLE_MS / 2;
      await registry.sync();
      assert.equal(registry.stats.resident, 1);

      // Left alone for longer: dropped.
      nowMs += IDLE_MS;
      await registry.sync();
      assert.equal(registry.stats.resident, 0);

      const again = await suggest(app, embedToken, 'prefix=k&limit=5');
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, first.body);
      assert.equal(again.headers.etag, first.headers.etag);
      assert.equal(registry.stats.resident, 1);
    });

    test('keeps an index that requests keep using', async (t) => {
      let nowMs = Date.parse('2026-03-01T12:00:00Z');
      const { app } = await build(t, engine, {
        now: () => new Date(nowMs),
        tuning: { typeaheadIdleMs: IDLE_MS },
      });
      const { registry } = app.parts.typeahead;
      const { id, embedToken } = await createInstance(app);
      await admin(app, 'PUT', `/instances/${id}/terms`, { included: ['Kettle'], excluded: [] });
      for (let minute = 0; minute < 5; minute++) {
        assert.deepEqual((await suggest(app, embedToken)).body, ['Kettle']);
        await registry.sync();
        nowMs += IDLE_MS - 1000;
        await registry.sync();
        assert.equal(registry.stats.resident, 1, `minute ${minute}`);
      }
    });
  });
}
