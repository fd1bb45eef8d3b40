import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { build } from '../helpers/app.js';
import { longestStall } from '../helpers/event-loop.js';
import { eventually } from '../helpers/eventually.js';
import { studioWithToken } from './api.js';
import { content, minimalBodies } from './fixtures.js';
import { seedRules } from './seed.js';

const RULES = 5_000;

describe('bulk operations on sqlite', () => {
  test('never hold the event loop for more than 50 ms while 5,000 rules are created', async (t) => {
    const { app, store } = await build(t, 'sqlite');
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
    // A commit of 100 rules (the runner's chunk), the step that cannot be split, timed on this
    // machine as it is now (a fixed size, so that larger chunks would show), plus a checkpoint:
    // every few commits SQLite also copies its WAL into the database in the committing call.
    const chunkCommit = async () => {
      let slowest = 0;
      for (let i = 0; i < 10; i++) {
        const contents = Array.from({ length: 100 }, (_, j) =>
          content({ ...minimalBodies.boostList, name: `Commit ${i}-${j}`, fieldValues: [`C${i}-${j}`] }),
        );
        await sql`begin`.execute(store.db);
        await seedRules(store.db, 'shop', contents, false);
        const started = performance.now();
        await sql`commit`.execute(store.db);
        slowest = Math.max(slowest, performance.now() - started);
      }
      // The committing call that crosses the WAL's size limit also copies it into the database.
      const started = performance.now();
      await sql`pragma wal_checkpoint(passive)`.execute(store.db);
      return slowest + (performance.now() - started);
    };
    const stall = await longestStall(
      t,
      50,
      async () => {
        const response = await app.inject({
          method: 'POST',
          url: '/em-rules/bulk',
          headers: { ...access.headers, 'content-type': 'application/json' },
          payload,
        });
        assert.equal(response.statusCode, 202, response.body);
        const { operationId } = response.json<{ operationId: string }>();
        const status = await eventually(
          async () => {
            const status = (
              await app.inject({ url: `/em-rules/bulk/${operationId}`, headers: access.headers })
            ).json<{ status: string; counts: { created: number } }>();
            return status.status !== 'PENDING' && status.status !== 'RUNNING' && status;
          },
          // Polled every 50 ms as before, so that the polls add as little as ever to the loop measured.
          { within: 60_000, every: 50, message: 'the bulk operation did not end' },
        );
        assert.equal(status.status, 'DONE');
        assert.equal(status.counts.created, RULES);
      },
      chunkCommit,
    );
    assert.ok(stall <= 50, `the event loop was held for ${stall.toFixed(1)} ms`);
  });
});
