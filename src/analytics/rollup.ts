// Rolling one profile's hour again from its raw rows, and finding the hours to roll.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Store } from '../storage/database.js';
import {
  HourRollup,
  type RawSearch,
  type RawSignal,
  ROLLUP_KINDS,
  type RollupKey,
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
  selectSignalsOf,
  upsertHourRows,
  writeDayRows,
} from './rollup-repository.js';
import type { RollupCounts } from './tables.js';

// Raw rows are read in pages of this many searches (on SQLite through the reader's own
// thread), stored rollup rows in pages of this many, and rows written in chunks of this many,
// yielding between them; a comparison yields after this many rows. An hour of a busy shop
// has tens of thousands of rows: one answer or loop over all of them held the event loop for
// a tenth of a second.
const READ_PAGE = 500;
const STORED_PAGE = 1000;
const WRITE_CHUNK = 200;
const COMPARE_SLICE = 5000;

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
 * How the freshly counted rows differ from those the hour rolled up to last time: the rows
 * new or changed, and the keys of those no longer counted. The stored rows are read kind by
 * kind in pages and compared as they come, so they never all stay in memory (a busy hour has
 * tens of thousands, and keeping them made the garbage collector's pauses long).
 */
async function differences(
  store: Store,
  at: ProfileHour,
  fresh: ReadonlyMap<string, RollupCounts>,
): Promise<{ changed: Array<RollupKey & { counts: RollupCounts }>; gone: RollupKey[] }> {
  const same = new Set<string>();
  const gone: RollupKey[] = [];
  for (const kind of ROLLUP_KINDS) {
    let after: string | undefined;
    for (;;) {
      const page = await selectHourRows(store.reader, at, kind, after, STORED_PAGE);
      for (const row of page) {
        const key = rowKey(kind, row.item);
        const counts = fresh.get(key);
        if (!counts) gone.push({ kind, item: row.item });
        else if (sameCounts(counts, row.counts)) same.add(key);
      }
      if (page.length < STORED_PAGE) break;
      after = page[page.length - 1]!.item;
    }
  }
  const changed: Array<RollupKey & { counts: RollupCounts }> = [];
  let compared = 0;
  for (const [key, counts] of fresh) {
    if (!same.has(key)) changed.push({ ...splitRowKey(key), counts });
    if (++compared % COMPARE_SLICE === 0) await yieldToEventLoop();
  }
  return { changed, gone };
}

/**
 * Rolls one profile's hour again from its raw rows: computes the hour's rows, writes those
 * that differ from the stored ones, deletes those no longer counted, and sums the changed
 * items' hours into their day's rows, and gives the day a new change token, in one
 * transaction so an answer sees all of it or none.
 */
export async function rollHour(store: Store, at: ProfileHour): Promise<RollResult> {
  const { rows: fresh, searches } = await aggregateHour(store, at);
  const { changed, gone } = await differences(store, at, fresh);
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
    // The answers' cache of this day's sums, on every node, sees the change by this token.
    await markDayChanged(trx, at.app, at.profileId, day);
  });
  return { searches, written: changed.length, deleted: gone.length };
}
