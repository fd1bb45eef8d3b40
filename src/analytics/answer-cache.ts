// The per-item sums the analytics answers rank, kept in memory between requests and checked
// against the days' change tokens on every request, so that an answer over 30 busy days reads
// one small range of tokens instead of 600,000 rows (docs/analytics.md, "How the answers
// stay fast").
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { type DayRange, type ItemSums, selectDayVersions, selectItemSums } from './answers-repository.js';
import { WIDE_LOOKBACK_MS } from './rollup-job.js';
import { DAY_MS } from './rollup-repository.js';

export type ItemKind = 'search' | 'rule' | 'document';

/**
 * Item sums the cache holds at most, all ranges together (about 150 bytes each): five
 * 30-day ranges of a shop with 20,000 search strings a day. Least recently asked ranges go first.
 */
export const MAX_CACHED_ITEMS = 500_000;

/** Some consecutive days of a range, their sums, and the tokens of the days they were read at. */
interface Block {
  from: number;
  to: number;
  token: string;
  items: readonly ItemSums[];
}

/** The range's days before today, summed and ranked: what a change of today leaves as it is. */
interface Settled {
  blocks: readonly Block[];
  ranked: readonly ItemSums[];
  byItem: ReadonlyMap<string, ItemSums>;
}

interface Entry {
  blocks: Block[];
  settled: Settled;
  /** Every item of the range, summed over the blocks, in the answer's order. */
  ranked: readonly ItemSums[];
  size: number;
}

const dayOf = (at: number) => at - (at % DAY_MS);

/**
 * The blocks a range is read in: the days no rollup is expected to touch again as one block
 * (re-read whole if one of them changes anyway: a late click on an old search, a privacy
 * delete), each day within the rollup's reach on its own (today's changes every few seconds
 * on a busy shop, and only it is read again then), and the days after today as one.
 */
export function splitRange(from: number, to: number, now: number): Array<{ from: number; to: number }> {
  const open = dayOf(now - WIDE_LOOKBACK_MS);
  const today = dayOf(now);
  const blocks: Array<{ from: number; to: number }> = [];
  if (from < open) blocks.push({ from, to: Math.min(to, open - DAY_MS) });
  for (let day = Math.max(from, open); day <= Math.min(to, today); day += DAY_MS)
    blocks.push({ from: day, to: day });
  if (to > today) blocks.push({ from: Math.max(from, today + DAY_MS), to });
  return blocks;
}

/** The tokens of a block's days, as one string: equal strings, unchanged days. */
function tokenOf(versions: ReadonlyMap<number, number>, from: number, to: number): string {
  let token = '';
  for (const [day, version] of versions) if (day >= from && day <= to) token += `${day}:${version};`;
  return token;
}

/** Ordering by UTF-8 bytes (code points), as SQLite and PostgreSQL's C collations order text. */
export function compareText(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (U+D800–U+DFFF) stand for code points above U+FFFF: after U+E000–U+FFFF.
    if (x >= 0xd800 && y >= 0xd800) {
      x += x >= 0xe000 ? -0x800 : 0x2000;
      y += y >= 0xe000 ? -0x800 : 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

/** Most searched first (rules: most fired), then most converted (rules, documents), then by name. */
const ORDERS: Record<ItemKind, (a: ItemSums, b: ItemSums) => number> = {
  search: (a, b) => b.searches - a.searches || compareText(a.item, b.item),
  rule: (a, b) => b.searches - a.searches || b.conversions - a.conversions || compareText(a.item, b.item),
  document: (a, b) => b.clicks - a.clicks || b.conversions - a.conversions || compareText(a.item, b.item),
};

/** Adds `row`'s sums to `sum`; the latest search is the later one (the more hits at a tie). */
function addInto(sum: ItemSums, row: ItemSums): void {
  sum.searches += row.searches;
  sum.clickSearches += row.clickSearches;
  sum.conversionSearches += row.conversionSearches;
  sum.cartSearches += row.cartSearches;
  sum.clicks += row.clicks;
  sum.conversions += row.conversions;
  sum.carts += row.carts;
  sum.positionSum += row.positionSum;
  sum.positionCount += row.positionCount;
  if (row.lastAt > sum.lastAt || (row.lastAt === sum.lastAt && row.lastHits > sum.lastHits)) {
    sum.lastAt = row.lastAt;
    sum.lastHits = row.lastHits;
  }
}

/** The blocks' sums added up per item, as new objects wherever two blocks share an item. */
function merge(blocks: readonly Block[]): ItemSums[] {
  if (blocks.length === 1) return [...blocks[0]!.items];
  const byItem = new Map<string, ItemSums>();
  for (const block of blocks)
    for (const row of block.items) {
      const sum = byItem.get(row.item);
      if (sum) addInto(sum, row);
      else byItem.set(row.item, { ...row });
    }
  return [...byItem.values()];
}

/**
 * The settled days' ranking with today's sums added: the items today touched are summed anew
 * and sorted among themselves, then merged into the settled ranking, which keeps its order for
 * every other item. The same list a full sort of the whole range gives (the orders are total),
 * at the cost of today's items and one pass, instead of summing and sorting the whole range.
 */
function overlay(
  settled: Settled,
  today: readonly ItemSums[],
  order: (a: ItemSums, b: ItemSums) => number,
): readonly ItemSums[] {
  if (today.length === 0) return settled.ranked;
  const moved = today
    .map((row) => {
      const base = settled.byItem.get(row.item);
      if (!base) return row;
      const sum = { ...base };
      addInto(sum, row);
      return sum;
    })
    .sort(order);
  const touched = new Set(today.map((row) => row.item));
  const ranked: ItemSums[] = [];
  let next = 0;
  for (const row of settled.ranked) {
    if (touched.has(row.item)) continue;
    while (next < moved.length && order(moved[next]!, row) < 0) ranked.push(moved[next++]!);
    ranked.push(row);
  }
  while (next < moved.length) ranked.push(moved[next++]!);
  return ranked;
}

const sameBlocks = (a: readonly Block[], b: readonly Block[]) =>
  a.length === b.length && a.every((block, i) => block === b[i]);

/**
 * The items of one kind of a profile's day range, summed and ranked, from memory where the
 * days' change tokens say nothing changed since they were read. Each node keeps its own; the
 * tokens are in the database, so a change made on any node is seen on the next request.
 */
export class AnswerCache {
  readonly #entries = new Map<string, Entry>();
  readonly #loading = new Map<string, Promise<readonly ItemSums[]>>();
  #size = 0;

  /**
   * `db` reads the tokens, `reader` the rows (on SQLite off the event loop). The tokens are
   * read before the rows: rows newer than their tokens only make the next request read again,
   * never keep an old sum.
   */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly reader: Kysely<Database>,
    private readonly maxItems = MAX_CACHED_ITEMS,
  ) {}

  async ranked(range: DayRange, kind: ItemKind, now: number): Promise<readonly ItemSums[]> {
    const versions = await selectDayVersions(this.db, range);
    const key = `${range.app}\u0000${range.profileId}\u0000${kind}\u0000${range.from}\u0000${range.to}`;
    // Requests of the same range under the same tokens share one read (the console asks for
    // the top, no-result and no-click searches at once).
    const under = `${key}\u0000${tokenOf(versions, range.from, range.to)}`;
    const pending = this.#loading.get(under);
    if (pending) return pending;
    const work = this.#rank(key, versions, range, kind, now);
    this.#loading.set(under, work);
    try {
      return await work;
    } finally {
      this.#loading.delete(under);
    }
  }

  async #rank(
    key: string,
    versions: ReadonlyMap<number, number>,
    range: DayRange,
    kind: ItemKind,
    now: number,
  ): Promise<readonly ItemSums[]> {
    const cached = this.#entries.get(key);
    const plan: ReadonlyArray<{ from: number; to: number } | Block> =
      cached?.blocks ?? splitRange(range.from, range.to, now);
    // A block read again is split anew, so that a range kept across midnight gets today on its own.
    const blocks: Block[] = (
      await Promise.all(
        plan.map(async (block): Promise<Block[]> => {
          if ('items' in block && block.token === tokenOf(versions, block.from, block.to)) return [block];
          return Promise.all(
            splitRange(block.from, block.to, now).map(async ({ from, to }) => ({
              from,
              to,
              token: tokenOf(versions, from, to),
              items: await selectItemSums(this.reader, { ...range, from, to }, kind),
            })),
          );
        }),
      )
    ).flat();
    if (cached && sameBlocks(blocks, cached.blocks)) {
      this.#entries.delete(key);
      this.#entries.set(key, cached);
      return cached.ranked;
    }
    // Today changes every few seconds on a busy shop; the days before it seldom do.
    const today = dayOf(now);
    const before = blocks.filter((block) => block.to < today);
    let settled = cached?.settled;
    if (!settled || !sameBlocks(before, settled.blocks)) {
      const ranked = merge(before).sort(ORDERS[kind]);
      settled = { blocks: before, ranked, byItem: new Map(ranked.map((row) => [row.item, row])) };
    }
    const ranked = overlay(settled, merge(blocks.filter((block) => block.to >= today)), ORDERS[kind]);
    this.#store(key, {
      blocks,
      settled,
      ranked,
      size: ranked.length + settled.ranked.length + blocks.reduce((n, b) => n + b.items.length, 0),
    });
    return ranked;
  }

  /** Entries held and the item sums in them (for tests and metrics). */
  get stats(): { entries: number; items: number } {
    return { entries: this.#entries.size, items: this.#size };
  }

  #store(key: string, entry: Entry): void {
    const previous = this.#entries.get(key);
    if (previous) {
      this.#entries.delete(key);
      this.#size -= previous.size;
    }
    if (entry.size > this.maxItems) return;
    for (const [oldest, held] of this.#entries) {
      if (this.#size + entry.size <= this.maxItems) break;
      this.#entries.delete(oldest);
      this.#size -= held.size;
    }
    this.#entries.set(key, entry);
    this.#size += entry.size;
  }
}
