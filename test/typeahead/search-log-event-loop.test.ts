import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { adminAuth, build } from '../helpers/app.js';
import { longestStall } from '../helpers/event-loop.js';
import { createInstance } from './helpers.js';

const NOW = new Date('2026-11-21T10:30:00.000Z');
const ENTRIES = 10_000;

describe('Typeahead search logs on sqlite', () => {
  test('never hold the event loop for more than 50 ms while 10,000 entries are posted', async (t) => {
    const { app } = await build(t, 'sqlite', { now: () => NOW });
    const { id } = await createInstance(app);
    // Distinct queries over the last day, long enough to take time to key.
    const entries = Array.from({ length: ENTRIES }, (_, i) => ({
      query: `Électrique kettle model ${i} with a long description of ${i % 97} features`,
      timestamp: new Date(NOW.getTime() - (i % 24) * 3_600_000).toISOString(),
      count: 1 + (i % 3),
    }));
    // Serialised beforehand: the client's work is not the service's.
    const payload = JSON.stringify(entries);
    const expected = entries.reduce((sum, entry) => sum + entry.count, 0);
    const stall = await longestStall(t, 50, async () => {
      const logged = await app.inject({
        method: 'POST',
        url: `/api/typeahead/instances/${id}/search-logs`,
        headers: { authorization: adminAuth, 'content-type': 'application/json' },
        payload,
      });
      assert.equal(logged.statusCode, 202, logged.body);
      assert.deepEqual(logged.json(), { accepted: expected, rejected: 0 });
    });
    assert.ok(stall <= 50, `the event loop was held for ${stall.toFixed(1)} ms`);
  });
});
