// Rolling one profile's hour again from its raw rows, and finding the hours to roll.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { chunks } from '../storage/chunks.js';
import type { Store } from '../storage/database.js';
import { TimeSlice } from '../storage/time-slice.js';
import {
  HourRollup,
  type RawSignal,
  ROLLUP_KINDS,
  type RollupKind,
  rowKey,
  sameCounts,
  splitRowKey,
  sumCounts,
} from './aggregate.js';
import {
  DAY_MS,
  deleteHourRows,
  HOUR_MS,
  markDayChanged,
  type ProfileHour,
  selectDayHourRows,
  selectHourRows,
  selectHourSearches,
  selectHoursOfDay,
  selectSignalsOf,
  upsertHourRows,
  writeDayRows,
} from './rollup-repository.js';
import type { RollupCounts } from './tables.js';

/**
 * How much of an hour one step of a roll handles before it lets the event loop run: raw
 * searches per page read (on SQLite through the reader's own thread), stored rollup rows per
 * page read, rows per statement written, hourly rows per statement read to sum a day, and the
 * time a loop over rows in memory runs. An hour of a busy shop has tens of thousands of rows:
 * one answer, statement or loop over all of them held the event loop for a tenth of a second.
 */
export interface RollSizes {
  readonly readPage: number;
  readonly storedPage: number;
  readonly writeChunk: number;
  readonly dayRows: number;
  /** Milliseconds a loop over the hour's rows in memory runs before it yields. */
  readonly sliceMs: number;
}

export const ROLL_SIZES: RollSizes = Object.freeze({
  readPage: 250,
  storedPage: 500,
  writeChunk: 100,
  dayRows: 1000,
  sliceMs: 4,
});

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

/**
 * Aggregates an hour's counted searches and their signals, reading page by page in time order.
 * A full page ends at the instant of its last search, which the next page starts at and reads
 * whole: so no search is read twice or skipped, without an order the index does not have.
 */
async function aggregateHour(
  store: Store,
  at: ProfileHour,
  sizes: RollSizes,
): Promise<{ rows: Map<string, RollupCounts>; searches: number }> {
  const rollup = new HourRollup();
  const end = at.hour + HOUR_MS;
  let from = at.hour;
  let searches = 0;
  for (;;) {
    const page = await selectHourSearches(store.reader, at, from, end, sizes.readPage);
    let taken = page;
    if (page.length === sizes.readPage) {
      const last = page[page.length - 1]!.at;
      taken = page.filter((search) => search.at < last);
      if (taken.length > 0) from = last;
      else {
        // A page's worth of searches at one instant: that instant is read whole.
        taken = await selectHourSearches(store.reader, at, last, last + 1);
        from = last + 1;
      }
    }
    const signals = await selectSignalsOf(
      store.reader,
      taken.map((s) => s.id),
    );
    const bySearch = new Map<string, RawSignal[]>();
    for (const signal of signals) {
      const list = bySearch.get(signal.queryId);
      if (list) list.push(signal);
      else bySearch.set(signal.queryId, [signal]);
    }
    for (const search of taken) rollup.add(search, bySearch.get(search.id) ?? []);
    searches += taken.length;
    if (page.length < sizes.readPage) break;
    await yieldToEventLoop();
  }
  return { rows: rollup.rows, searches };
}

/** Items of rollup rows, by kind. */
type ItemsByKind = Map<RollupKind, string[]>;

function addItem(byKind: ItemsByKind, kind: RollupKind, item: string): void {
  const items = byKind.get(kind);
  if (items) items.push(item);
  else byKind.set(kind, [item]);
}

/**
 * How the freshly counted rows differ from those the hour rolled up to last time: the items
 * new or changed, and those no longer counted, by kind. The stored rows are read kind by kind
 * in pages and compared as they come, so they never all stay in memory (a busy hour has
 * tens of thousands, and keeping them made the garbage collector's pauses long); the result
 * holds the items' names only, not an object per row.
 */
async function differences(
  store: Store,
  at: ProfileHour,
  fresh: ReadonlyMap<string, RollupCounts>,
  sizes: RollSizes,
): Promise<{ changed: ItemsByKind; gone: ItemsByKind; count: number }> {
  const slice = new TimeSlice(sizes.sliceMs);
  const same = new Set<string>();
  const gone: ItemsByKind = new Map();
  let count = 0;
  for (const kind of ROLLUP_KINDS) {
    let after: string | undefined;
    for (;;) {
      const page = await selectHourRows(store.reader, at, kind, after, sizes.storedPage);
      for (const row of page) {
        const key = rowKey(kind, row.item);
        const counts = fresh.get(key);
        if (!counts) {
          addItem(gone, kind, row.item);
          count++;
        } else if (sameCounts(counts, row.counts)) same.add(key);
      }
      if (page.length < sizes.storedPage) break;
      after = page[page.length - 1]!.item;
    }
  }
  const changed: ItemsByKind = new Map();
  for (const key of fresh.keys()) {
    if (!same.has(key)) {
      const { kind, item } = splitRowKey(key);
      addItem(changed, kind, item);
      count++;
    }
    if (slice.due()) await slice.pass();
  }
  return { changed, gone, count };
}

/**
 * Rolls one profile's hour again from its raw rows: computes the hour's rows, writes those
 * that differ from the stored ones, deletes those no longer counted, and sums the changed
 * items' hours into their day's rows, and gives the day a new change token, in one
 * transaction so an answer sees all of it or none.
 */
export async function rollHour(
  store: Store,
  at: ProfileHour,
  sizes: RollSizes = ROLL_SIZES,
): Promise<RollResult> {
  const { rows: fresh, searches } = await aggregateHour(store, at, sizes);
  const { changed, gone, count } = await differences(store, at, fresh, sizes);
  if (count === 0) return { searches, written: 0, deleted: 0 };
  const day = at.hour - (at.hour % DAY_MS);
  let written = 0;
  await store.bulkTransaction(async (trx) => {
    for (const [kind, items] of changed)
      for (const chunk of chunks(items, sizes.writeChunk)) {
        const rows = chunk.map((item) => ({ kind, item, counts: fresh.get(rowKey(kind, item))! }));
        await upsertHourRows(trx, at, rows);
        written += rows.length;
        await yieldToEventLoop();
      }
    for (const [kind, items] of gone)
      for (const chunk of chunks(items, sizes.writeChunk)) {
        await deleteHourRows(trx, at, kind, chunk);
        await yieldToEventLoop();
      }
    // The day's rows of the items that changed, summed anew from their hours: each statement
    // reads at most `dayRows` hourly rows (an item has one per hour of the day that has rows).
    const hours = await selectHoursOfDay(trx, at.app, at.profileId, day);
    const perChunk = Math.max(
      1,
      Math.min(sizes.writeChunk, Math.floor(sizes.dayRows / Math.max(1, hours.length))),
    );
    for (const kind of ROLLUP_KINDS) {
      // Apart, and each without repeats: changed items are counted now, gone ones not.
      const items = [...(changed.get(kind) ?? []), ...(gone.get(kind) ?? [])];
      for (const chunk of chunks(items, perChunk)) {
        const byItem = new Map<string, RollupCounts[]>();
        for (const row of await selectDayHourRows(trx, at.app, at.profileId, kind, hours, chunk)) {
          const counts = byItem.get(row.item);
          if (counts) counts.push(row.counts);
          else byItem.set(row.item, [row.counts]);
        }
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
    // The answers' cache of this day's sums, on every node, sees the change by this token.
    await markDayChanged(trx, at.app, at.profileId, day);
  });
  return { searches, written, deleted: count - written };
}
