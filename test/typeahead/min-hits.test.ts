// An instance's minHits: a search logged with fewer hits than it does not count; one logged
// without hits counts as before. The setting is read, changed and exported like the others.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { build, engines, skipReason } from '../helpers/app.js';
import { admin, createInstance } from './helpers.js';

const NOW = new Date('2026-11-21T10:30:00.000Z');

for (const engine of engines) {
  describe(`Typeahead minHits on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('searches that found fewer documents than minHits are rejected; those without hits count', async (t) => {
      const { app } = await build(t, engine, { now: () => NOW });
      const { id } = await createInstance(app);
      assert.equal((await admin(app, 'GET', `/instances/${id}`)).body.minHits, 1);
      const logged = await admin(app, 'POST', `/instances/${id}/search-logs`, [
        { query: 'kettle', count: 3, hits: 12 },
        { query: 'kettel', count: 2, hits: 0 },
        { query: 'toaster' },
      ]);
      assert.equal(logged.status, 202, JSON.stringify(logged.body));
      assert.deepEqual(logged.body, { accepted: 4, rejected: 2 });

      const changed = await admin(app, 'PATCH', `/instances/${id}`, { minHits: 5 });
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      assert.equal(changed.body.minHits, 5);
      const stricter = await admin(app, 'POST', `/instances/${id}/search-logs`, [
        { query: 'kettle', hits: 4 },
        { query: 'kettle', hits: 5 },
      ]);
      assert.deepEqual(stricter.body, { accepted: 1, rejected: 1 });
      const everyOne = await admin(app, 'PATCH', `/instances/${id}`, { minHits: 0 });
      assert.equal(everyOne.body.minHits, 0);
      const zero = await admin(app, 'POST', `/instances/${id}/search-logs`, [{ query: 'kettel', hits: 0 }]);
      assert.deepEqual(zero.body, { accepted: 1, rejected: 0 });
      const refused = await admin(app, 'PATCH', `/instances/${id}`, { minHits: -1 });
      assert.equal(refused.status, 400);
      assert.equal(refused.body.errors[0].field, 'minHits');
      const badHits = await admin(app, 'POST', `/instances/${id}/search-logs`, [
        { query: 'x', hits: 'many' },
      ]);
      assert.equal(badHits.status, 400);
    });
  });
}
