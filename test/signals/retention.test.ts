// Raw signals are pruned past the retention (30 days by default, a setting) by the hourly job,
// on the one node that takes its lease.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { insertSignals } from '../../src/signals/repository.js';
import { build, buildNodes, engines, skipReason } from '../helpers/app.js';
import { clickRow, searchSignal, storedSignals } from './helpers.js';

const NOW = new Date('2026-11-28T08:00:00.000Z');
const DAY = 86_400_000;

const signal = clickRow;

for (const engine of engines) {
  describe(`Signals retention on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('prunes response signals and posted signals older than 30 days by default', async (t) => {
      const { app, store } = await build(t, engine, { now: () => NOW });
      const at = (days: number) => NOW.getTime() - days * DAY;
      for (const [id, days] of [
        ['old', 31],
        ['edge', 29.9],
        ['new', 1],
      ] as const)
        app.parts.signals.searchSignals.addRow(searchSignal({ id, at: at(days) }));
      await app.parts.signals.searchSignals.flush();
      await insertSignals(store.db, [signal('s-old', at(30.01)), signal('s-new', at(2))]);
      assert.equal(await app.parts.signals.retention.runOnLease(), true);
      const searches = await store.db.selectFrom('search_signal').select('id').orderBy('id').execute();
      assert.deepEqual(
        searches.map((row) => row.id),
        ['edge', 'new'],
      );
      assert.deepEqual(
        (await storedSignals(store.db)).map((row) => row.id),
        ['s-new'],
      );
    });

    test('keeps them as many days as SEARCHDECK_SIGNALS_RETENTION_DAYS says, pruned by one node of several', async (t) => {
      const nodes = await buildNodes(t, engine, 2, {
        now: () => NOW,
        env: { SEARCHDECK_SIGNALS_RETENTION_DAYS: '3' },
      });
      const [first, second] = nodes.map((node) => node.app);
      await insertSignals(nodes[0]!.store.db, [
        signal('four-days', NOW.getTime() - 4 * DAY),
        signal('two-days', NOW.getTime() - 2 * DAY),
      ]);
      const runs = await Promise.all(
        [first!, second!].map((app) => app.parts.signals.retention.runOnLease()),
      );
      assert.deepEqual(runs.sort(), [false, true]);
      assert.deepEqual(
        (await storedSignals(nodes[0]!.store.db)).map((row) => row.id),
        ['two-days'],
      );
    });
  });
}
