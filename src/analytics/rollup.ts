// Rolling one profile's hour again from its raw rows, and finding the hours to roll.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Store } from '../storage/database.js';
import {
  HourRollup,
  type RawSearch,
  type RawSignal,
  rowKey,
  sameCounts,
  splitRowKey,
  sumCounts,
} from './aggregate.js';
import {
  DAY_MS,
  deleteHourRows,
  HOUR_MS,
  type ProfileHour,
  selectDayHourRows,
  selectHourRows,
  selectHourSearches,
  selectSignalsOf,
  upsertHourRows,
  writeDayRows,
} from './rollup-repository.js';
import type { RollupCounts } from './tables.js';

// Raw rows are read in pages of this many searches (on SQLite through the reader's own
// thread), and rows written in chunks of this many, yielding between them.
const READ_PAGE = 2000;
const WRITE_CHUNK = 200;

/** What rolling an hour changed: rows written and deleted, hourly and daily. */
export interface RollResult {
  searches: number;
  written: number;
  deleted: number;
}

/** The hour (epoch ms of its start, UTC) an instant falls in. */
export function hourOf(at: number): number {
  return at - (at % HOUR_MS);
}

function chunks<T>(items: readonly T[], size = WRITE_CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Aggregates an hour's counted searches and their signals, reading page by page. */
async function aggregateHour(
  store: Store,
  at: ProfileHour,
): Promise<{ rows: Map<string, RollupCounts>; searches: number }> {
  const rollup = new HourRollup();
  let after: { at: number; id: string } | undefined;
  let searches = 0;
  for (;;) {
    const page = await selectHourSearches(store.reader, at, after, READ_PAGE);
    if (page.length === 0) break;
    const signals = await selectSignalsOf(
      store.reader,
      page.map((s) => s.id),
    );
    const bySearch = new Map<string, RawSignal[]>();
    for (const signal of signals) {
      const list = bySearch.get(signal.queryId);
      if (list) list.push(signal);
      else bySearch.set(signal.queryId, [signal]);
    }
    for (const search of page as RawSearch[]) rollup.add(search, bySearch.get(search.id) ?? []);
    searches += page.length;
    if (page.length < READ_PAGE) break;
    const last = page[page.length - 1]!;
    after = { at: last.at, id: last.id };
    await yieldToEventLoop();
  }
  return { rows: rollup.rows, searches };
}

/**
 * Rolls one profile's hour again from its raw rows: computes the hour's rows, writes those
 * that differ from the stored ones, deletes those no longer counted, and sums the changed
 * items' hours into their day's rows, in one transaction so an answer sees all of it or none.
 */
export async function rollHour(store: Store, at: ProfileHour): Promise<RollResult> {
  const { rows: fresh, searches } = await aggregateHour(store, at);
  const stored = new Map<string, RollupCounts>();
  for (const row of await selectHourRows(store.reader, at))
    stored.set(rowKey(row.kind, row.item), row.counts);
  const changed: Array<{ kind: string; item: string; counts: RollupCounts }> = [];
  for (const [key, counts] of fresh) {
    const before = stored.get(key);
    if (!before || !sameCounts(before, counts)) changed.push({ ...splitRowKey(key), counts });
  }
  const gone = [...stored.keys()].filter((key) => !fresh.has(key)).map(splitRowKey);
  if (changed.length === 0 && gone.length === 0) return { searches, written: 0, deleted: 0 };
  const day = at.hour - (at.hour % DAY_MS);
  await store.db.transaction().execute(async (trx) => {
    for (const chunk of chunks(changed)) {
      await upsertHourRows(trx, at, chunk);
      await yieldToEventLoop();
    }
    for (const kind of new Set(gone.map((g) => g.kind)))
      for (const chunk of chunks(gone.filter((g) => g.kind === kind).map((g) => g.item)))
        await deleteHourRows(trx, at, kind, chunk);
    // The day's rows of the items that changed, summed anew from their hours.
    const touched = [...changed, ...gone];
    for (const kind of new Set(touched.map((t) => t.kind))) {
      const items = [...new Set(touched.filter((t) => t.kind === kind).map((t) => t.item))];
      for (const chunk of chunks(items)) {
        const hours = await selectDayHourRows(trx, at.app, at.profileId, kind, day, chunk);
        const byItem = new Map<string, RollupCounts[]>();
        for (const row of hours) byItem.set(row.item, [...(byItem.get(row.item) ?? []), row.counts]);
        const sums = [...byItem].map(([item, counts]) => ({ item, counts: sumCounts(counts) }));
        await writeDayRows(
          trx,
          at.app,
          at.profileId,
          kind,
          day,
          sums,
          chunk.filter((item) => !byItem.has(item)),
        );
        await yieldToEventLoop();
      }
    }
  });
  return { searches, written: changed.length, deleted: gone.length };
}
