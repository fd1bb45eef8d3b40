import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildNodes, engines, skipReason } from '../helpers/app.js';
import { admin, createInstance, suggest } from './helpers.js';

/** Polls until `check` holds, answering how long it took (ms), or fails after `withinMs`. */
async function eventually(check: () => Promise<boolean>, withinMs: number): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > withinMs) assert.fail(`not within ${withinMs} ms`);
    await sleep(20);
  }
  return Date.now() - started;
}

for (const engine of engines) {
  describe(`Typeahead on several nodes on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('a change made through one node is served by the other within 2 seconds', async (t) => {
      const [one, two] = await buildNodes(t, engine, 2);
      await two!.app.ready();
      const { id, embedToken } = await createInstance(one!.app);
      await eventually(async () => (await suggest(two!.app, embedToken)).status === 200, 2000);
      await admin(one!.app, 'PUT', `/instances/${id}/terms`, { included: ['kettle'], excluded: [] });
      await eventually(async () => (await suggest(two!.app, embedToken)).body.length === 1, 2000);
      await admin(one!.app, 'PATCH', `/instances/${id}/terms`, { add: { excluded: ['KETTLE'] } });
      await eventually(async () => (await suggest(two!.app, embedToken)).body.length === 0, 2000);
      const rotated = await admin(one!.app, 'POST', `/instances/${id}/embed-token`);
      await eventually(async () => (await suggest(two!.app, embedToken)).status === 401, 2000);
      assert.equal((await suggest(two!.app, rotated.body.embedToken)).status, 200);
    });

    test('the scheduled job runs on one node only', async (t) => {
      const [one, two] = await buildNodes(t, engine, 2);
      await Promise.all([one!.app.ready(), two!.app.ready()]);
      const { id } = await createInstance(one!.app, { minCount: 1 });
      await admin(one!.app, 'POST', `/instances/${id}/search-logs`, [{ query: 'kettle' }]);
      const ran = await Promise.all([
        one!.app.parts.typeahead.topSearched.runScheduledJob(),
        two!.app.parts.typeahead.topSearched.runScheduledJob(),
      ]);
      assert.deepEqual(ran.filter(Boolean).length, 1, `exactly one node runs the job (${ran.join(', ')})`);
      const loser = ran[0] ? two! : one!;
      assert.equal(
        await loser.app.parts.typeahead.topSearched.runScheduledJob(),
        false,
        'the lease holds for the hour',
      );
      const terms = await admin(two!.app, 'GET', `/instances/${id}/terms`);
      assert.deepEqual(terms.body.topSearched, [{ term: 'kettle', count: 1 }]);
    });
  });
}
