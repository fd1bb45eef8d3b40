import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { build } from '../helpers/app.js';
import { longestStall } from '../helpers/event-loop.js';
import { studioWithToken } from './api.js';

const RULES = 5_000;

describe('bulk operations on sqlite', () => {
  test('never hold the event loop for more than 50 ms while 5,000 rules are created', async (t) => {
    const { app } = await build(t, 'sqlite');
    const access = await studioWithToken(app, 'shop');
    const payload = JSON.stringify({
      create: Array.from({ length: RULES }, (_, i) => ({
        type: 'boostList',
        name: `Bulk ${i}`,
        description: `Boosts the products of campaign ${i}`,
        tags: ['bulk', `campaign-${i % 50}`],
        conditions: { queries: [`query ${i % 100}`] },
        fieldName: 'id',
        fieldValues: [`P${i}`, `P${i + 1}`],
      })),
    });
    const stall = await longestStall(t, 50, async () => {
      const response = await app.inject({
        method: 'POST',
        url: '/em-rules/bulk',
        headers: { ...access.headers, 'content-type': 'application/json' },
        payload,
      });
      assert.equal(response.statusCode, 202, response.body);
      const { operationId } = response.json<{ operationId: string }>();
      let status: { status: string; counts: { created: number } };
      do {
        await sleep(50);
        status = (await app.inject({ url: `/em-rules/bulk/${operationId}`, headers: access.headers })).json();
      } while (status.status === 'PENDING' || status.status === 'RUNNING');
      assert.equal(status.status, 'DONE');
      assert.equal(status.counts.created, RULES);
    });
    assert.ok(stall <= 50, `the event loop was held for ${stall.toFixed(1)} ms`);
  });
});
