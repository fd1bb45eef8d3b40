import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Kysely, KyselyPlugin } from 'kysely';
import { ROLL_SIZES, type RollSizes, rollHour } from '../../src/analytics/rollup.js';
import type { Store } from '../../src/storage/database.js';
import type { Database } from '../../src/storage/schema.js';
import { engines, freshStore, skipReason } from '../helpers/app.js';
import { APP, insertSearches, insertSignals, PROFILE, type SeedSearch } from './seed.js';

const HOUR = 3_600_000;
const H9 = Date.UTC(2026, 2, 10, 9);
const H10 = H9 + HOUR;
const at = (hour: number) => ({ app: APP, profileId: PROFILE, hour });

// Steps of a few rows: every page, chunk and slice boundary of a roll falls many times, and
// on searches of the same instant (the pages' order is (at, id)).
const TINY: RollSizes = { readPage: 7, storedPage: 5, writeChunk: 3, dayRows: 4, sliceMs: 0 };
const WHOLE: RollSizes = { ...ROLL_SIZES, readPage: 1e6, storedPage: 1e6, writeChunk: 1e3, dayRows: 1e6 };

function searchesOf(hour: number, count: number, from = 0): SeedSearch[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `${hour}-${from + i}`,
    at: hour + Math.floor((from + i) / 4) * 1000,
    query: `query ${(from + i) % 13}`,
    hits: (from + i) % 5 === 0 ? 0 : 7,
    docIds: [`d${(from + i) % 11}`, `d${(from + i) % 7}`],
    ruleIds: (from + i) % 3 === 0 ? ['r1'] : [],
  }));
}

/** Both rollup tables, in a fixed order. */
async function rollups(db: Kysely<Database>) {
  const hours = await db
    .selectFrom('analytics_hour')
    .selectAll()
    .orderBy('kind')
    .orderBy('hour')
    .orderBy('item')
    .execute();
  const days = await db
    .selectFrom('analytics_day')
    .selectAll()
    .orderBy('kind')
    .orderBy('day')
    .orderBy('item')
    .execute();
  return { hours, days };
}

for (const engine of engines) {
  describe(`a roll's steps on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('an hour rolled in steps of a few rows writes what one step over all of them writes', async (t) => {
      const fresh = await freshStore(engine);
      t.after(() => fresh.close());
      const { store } = fresh;
      // Four searches an instant, and a burst of more than a page at one instant.
      const burst = searchesOf(H10, 10, 100).map((search) => ({ ...search, at: H10 + 4500 }));
      const ids = await insertSearches(store.db, [...searchesOf(H9, 40), ...searchesOf(H10, 60), ...burst]);
      await insertSignals(
        store.db,
        ids
          .filter((_, i) => i % 3 === 0)
          .map((queryId, i) => ({
            queryId,
            type: i % 4 === 0 ? 'purchase' : 'click',
            docId: `d${i % 11}`,
            at: H10,
          })),
      );
      await rollHour(store, at(H9), TINY);
      await rollHour(store, at(H10), TINY);
      // Rolled again after late searches and after some went (as a privacy delete takes them):
      // changed, new and gone rows, each in its own steps.
      await insertSearches(store.db, searchesOf(H10, 25, 60));
      await store.db
        .deleteFrom('search_signal')
        .where('id', 'in', [`${H9}-0`, `${H10}-1`, `${H10}-2`])
        .execute();
      await store.db.deleteFrom('search_signal').where('query', '=', 'query 12').execute();
      await rollHour(store, at(H10), TINY);
      await rollHour(store, at(H9), TINY);
      const stepped = await rollups(store.db);

      for (const table of ['analytics_hour', 'analytics_day', 'analytics_day_version'] as const)
        await store.db.deleteFrom(table).execute();
      await rollHour(store, at(H9), WHOLE);
      await rollHour(store, at(H10), WHOLE);
      const whole = await rollups(store.db);
      assert.ok(whole.hours.some((row) => row.kind === 'document') && whole.days.length > 0);
      assert.ok(!whole.hours.some((row) => row.item === 'query 12'), 'the gone search string has no row');
      assert.deepEqual(stepped, whole);
    });

    test('a roll of a busy hour cuts its work in steps, with a turn of the event loop between them', async (t) => {
      const fresh = await freshStore(engine);
      t.after(() => fresh.close());
      const searches = 1200;
      // Each search its own search string, so the hour rolls up to as many rows.
      await insertSearches(
        fresh.store.db,
        Array.from({ length: searches }, (_, i) => ({ at: H10 + i, query: `query ${i}`, hits: 3 })),
      );
      // The statements of the roll, and those of its transaction by the turn of the event loop
      // they were made in.
      let turn = 0;
      let rolling = true;
      const next = () => {
        turn++;
        if (rolling) setImmediate(next);
      };
      setImmediate(next);
      let statements = 0;
      const perTurn = new Map<number, number>();
      const counter = (inTransaction: boolean): KyselyPlugin => ({
        transformQuery: ({ node }) => {
          statements++;
          if (inTransaction) perTurn.set(turn, (perTurn.get(turn) ?? 0) + 1);
          return node;
        },
        transformResult: async ({ result }) => result,
      });
      const store: Store = {
        ...fresh.store,
        db: fresh.store.db.withPlugin(counter(false)),
        reader: fresh.store.reader.withPlugin(counter(false)),
        bulkTransaction: (work) => fresh.store.bulkTransaction((trx) => work(trx.withPlugin(counter(true)))),
      };
      const rolled = await rollHour(store, at(H10));
      rolling = false;
      assert.equal(rolled.searches, searches);
      const most = Math.max(...perTurn.values());
      t.diagnostic(
        `${statements} statements, at most ${most} of its transaction in one turn of the event loop`,
      );
      // A page read for each few hundred searches, a statement for each chunk of hourly rows
      // written and two for each chunk of daily rows summed...
      const steps =
        Math.ceil(searches / ROLL_SIZES.readPage) + 3 * Math.ceil(rolled.written / ROLL_SIZES.writeChunk);
      assert.ok(statements >= steps, `${statements} statements, fewer than the ${steps} steps`);
      // ...and the event loop runs between the writes: on SQLite, writes that did not yield
      // would all be made in one turn, the driver answering synchronously.
      assert.ok(most <= 4, `${most} statements of the transaction in one turn of the event loop`);
    });
  });
}
