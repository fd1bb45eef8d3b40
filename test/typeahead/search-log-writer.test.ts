import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { selectKeyTotals } from '../../src/typeahead/repository.js';
import { SearchLogWriter } from '../../src/typeahead/search-log-writer.js';
import { build, engines, skipReason } from '../helpers/app.js';
import { createInstance } from './helpers.js';

const HOUR = '2026-11-21T10';
const rowsOf = (instanceId: string, keys: string[]) => ({
  instanceId,
  counts: keys.map((key) => ({ key, hour: HOUR, count: 2 })),
  forms: keys.map((key) => ({ key, form: key, count: 2, lastHour: HOUR })),
});

for (const engine of engines) {
  describe(`The search-log writer on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('writes requests that arrive together, summing the rows they share per instance', async (t) => {
      const { app, store } = await build(t, engine);
      const first = (await createInstance(app)).id;
      const second = (await createInstance(app)).id;
      const writer = new SearchLogWriter(store.db);
      await Promise.all([
        writer.write(rowsOf(first, ['kettle', 'toaster'])),
        writer.write(rowsOf(second, ['kettle'])),
        writer.write(rowsOf(first, ['kettle', 'blender'])),
      ]);
      const totals = async (id: string) =>
        (await selectKeyTotals(store.db, id, undefined, HOUR, 10)).map(({ key, total }) => [key, total]);
      assert.deepEqual(await totals(first), [
        ['blender', 2],
        ['kettle', 4],
        ['toaster', 2],
      ]);
      assert.deepEqual(await totals(second), [['kettle', 2]]);
    });

    test('fails only the request whose rows cannot be written, and writes the others of its group', async (t) => {
      const { app, store } = await build(t, engine);
      const id = (await createInstance(app)).id;
      const writer = new SearchLogWriter(store.db);
      const [good, missing, alsoGood] = await Promise.allSettled([
        writer.write(rowsOf(id, ['kettle'])),
        writer.write(rowsOf('no-such-instance', ['kettle'])),
        writer.write(rowsOf(id, ['toaster'])),
      ]);
      assert.equal(good.status, 'fulfilled');
      assert.equal(missing.status, 'rejected');
      assert.equal(alsoGood.status, 'fulfilled');
      const totals = await selectKeyTotals(store.db, id, undefined, HOUR, 10);
      assert.deepEqual(
        totals.map(({ key, total }) => [key, total]),
        [
          ['kettle', 2],
          ['toaster', 2],
        ],
      );
    });
  });
}
