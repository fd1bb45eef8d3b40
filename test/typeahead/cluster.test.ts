import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildNodes, engines, skipReason } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';
import { admin, createInstance, suggest } from './helpers.js';

for (const engine of engines) {
  describe(`Typeahead on several nodes on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('a change made through one node is served by the other within 2 seconds', async (t) => {
      const [one, two] = await buildNodes(t, engine, 2);
      await two!.app.ready();
      const { id, embedToken } = await createInstance(one!.app);
      await eventually(async () => (await suggest(two!.app, embedToken)).status === 200, { within: 2000 });
      await admin(one!.app, 'PUT', `/instances/${id}/terms`, { included: ['kettle'], excluded: [] });
      await eventually(async () => (await suggest(two!.app, embedToken)).body.length === 1, { within: 2000 });
      await admin(one!.app, 'PATCH', `/instances/${id}/terms`, { add: { excluded: ['KETTLE'] } });
      await eventually(async () => (await suggest(two!.app, embedToken)).body.length === 0, { within: 2000 });
      const rotated = await admin(one!.app, 'POST', `/instances/${id}/embed-token`);
      await eventually(async () => (await suggest(two!.app, embedToken)).status === 401, { within: 2000 });
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
