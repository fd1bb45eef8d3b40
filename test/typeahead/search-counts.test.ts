// Searches per hour of an instance (the console's chart): every hour of the range, oldest
// first, summed over the searched terms, with hours without searches counting 0.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { build, contractTest, engines, skipReason } from '../helpers/app.js';
import { createUser, signIn } from '../users/helpers.js';
import { admin, createInstance } from './helpers.js';

const NOW = new Date('2026-11-21T10:30:00.000Z');
const hoursAgo = (hours: number) => new Date(NOW.getTime() - hours * 3_600_000).toISOString();

for (const engine of engines) {
  describe(`Typeahead searches per hour on ${engine}`, { skip: await skipReason(engine) }, () => {
    const contract = contractTest(engine);
    test('answers every hour of the range with the searches logged in it', async (t) => {
      const { app } = await build(t, engine, { now: () => NOW });
      const { id } = await createInstance(app, { topTermsWindowDays: 2 });
      const other = await createInstance(app, { name: 'Other' });
      const logged = await admin(app, 'POST', `/instances/${id}/search-logs`, [
        { query: 'kettle', count: 3 },
        { query: 'toaster', timestamp: hoursAgo(0.2) },
        { query: 'kettle', count: 2, timestamp: hoursAgo(2) },
        { query: 'kettle', count: 7, timestamp: hoursAgo(5) },
      ]);
      assert.equal(logged.status, 202, JSON.stringify(logged.body));
      await admin(app, 'POST', `/instances/${other.id}/search-logs`, [{ query: 'kettle', count: 50 }]);

      const counts = await admin(app, 'GET', `/instances/${id}/search-counts?hours=3`);
      assert.equal(counts.status, 200, JSON.stringify(counts.body));
      assert.deepEqual(counts.body, {
        instance: id,
        hours: [
          { hour: '2026-11-21T08', count: 2 },
          { hour: '2026-11-21T09', count: 0 },
          { hour: '2026-11-21T10', count: 4 },
        ],
        total: 6,
      });

      const window = await admin(app, 'GET', `/instances/${id}/search-counts`);
      assert.equal(window.body.hours.length, 48, "the instance's window by default");
      assert.equal(window.body.hours.at(-1).hour, '2026-11-21T10');
      assert.equal(window.body.total, 13);
    });

    contract('refuses a range out of bounds and an unknown instance; a viewer reads it', async (t) => {
      const { app } = await build(t, engine, { now: () => NOW });
      const { id } = await createInstance(app);
      for (const hours of ['0', '8761', 'many']) {
        const answer = await admin(app, 'GET', `/instances/${id}/search-counts?hours=${hours}`);
        assert.equal(answer.status, 400, hours);
        assert.equal(answer.body.code, 'invalid-parameter');
      }
      assert.equal((await admin(app, 'GET', '/instances/nope/search-counts')).status, 404);
      await createUser(app, 'vera', 'viewer');
      const { cookie } = await signIn(app, 'vera');
      const read = await app.inject({
        url: `/api/typeahead/instances/${id}/search-counts?hours=1`,
        headers: { cookie },
      });
      assert.equal(read.statusCode, 200, read.body);
      assert.deepEqual(read.json().hours, [{ hour: '2026-11-21T10', count: 0 }]);
    });
  });
}
