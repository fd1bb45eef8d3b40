// The SQL of the analytics answers: a range of one profile's daily (or hourly) rows of one
// kind, summed per item; each reads the primary key's range (app, profile, kind, day).
import { type ExpressionBuilder, type Kysely, type QueryCreator, sql } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { RollupCounts } from './tables.js';

/** One profile's days, `from` and `to` inclusive (epoch ms of the UTC days' starts). */
export interface DayRange {
  app: string;
  profileId: string;
  from: number;
  to: number;
}

export interface Page {
  limit: number;
  offset: number;
}

function days(db: QueryCreator<Database>, range: DayRange, kind: string) {
  return db
    .selectFrom('analytics_day')
    .where('app', '=', range.app)
    .where('profile_id', '=', range.profileId)
    .where('kind', '=', kind)
    .where('day', '>=', range.from)
    .where('day', '<=', range.to);
}

const n = (value: unknown) => Number(value ?? 0);

/** The sums of these counts over the range's rows, each named as its column. */
function sums<C extends keyof RollupCounts>(columns: readonly C[]) {
  return (eb: ExpressionBuilder<Database, 'analytics_day'>) =>
    columns.map((column) => eb.fn.sum<number>(column).as(column));
}

/** Search strings, most searched first, with their sums. */
export async function selectTopSearches(db: Kysely<Database>, range: DayRange, page: Page) {
  const rows = await days(db, range, 'search')
    .select('item')
    .select(
      sums([
        'searches',
        'click_searches',
        'clicks',
        'position_sum',
        'position_count',
        'conversion_searches',
        'cart_searches',
      ]),
    )
    .groupBy('item')
    .orderBy(sql`sum(searches)`, 'desc')
    .orderBy('item')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map((row) => ({
    item: row.item,
    searches: n(row.searches),
    clickSearches: n(row.click_searches),
    clicks: n(row.clicks),
    positionSum: n(row.position_sum),
    positionCount: n(row.position_count),
    conversionSearches: n(row.conversion_searches),
    cartSearches: n(row.cart_searches),
  }));
}

/** The hits of the latest search of each of these search strings in the range. */
export async function selectLatestHits(
  db: Kysely<Database>,
  range: DayRange,
  items: readonly string[],
): Promise<Map<string, number>> {
  const latest = new Map<string, { at: number; hits: number }>();
  if (items.length === 0) return new Map();
  const rows = await days(db, range, 'search')
    .select(['item', 'last_at', 'last_hits'])
    .where('item', 'in', items)
    .execute();
  for (const row of rows) {
    const seen = latest.get(row.item);
    const at = n(row.last_at);
    const hits = n(row.last_hits);
    if (!seen || at > seen.at || (at === seen.at && hits > seen.hits)) latest.set(row.item, { at, hits });
  }
  return new Map([...latest].map(([item, { hits }]) => [item, hits]));
}

/**
 * Search strings whose latest search in the range had no hits (`noResults`), or had hits
 * and none of whose searches got a click (`noClicks`), most searched first.
 */
export async function selectByLatestSearch(
  db: Kysely<Database>,
  range: DayRange,
  which: 'noResults' | 'noClicks',
  page: Page,
) {
  let query = db
    .with('agg', (qb) => {
      const grouped = days(qb, range, 'search')
        .select((eb) => [
          'item',
          eb.fn.sum<number>('searches').as('count'),
          eb.fn.max('last_at').as('last_at'),
        ])
        .groupBy('item');
      return which === 'noClicks' ? grouped.having(sql`sum(click_searches)`, '=', 0) : grouped;
    })
    .selectFrom('agg')
    .innerJoin('analytics_day as d', (join) =>
      join
        .onRef('d.item', '=', 'agg.item')
        .onRef('d.last_at', '=', 'agg.last_at')
        .on('d.app', '=', range.app)
        .on('d.profile_id', '=', range.profileId)
        .on('d.kind', '=', 'search')
        .on('d.day', '>=', range.from)
        .on('d.day', '<=', range.to),
    )
    .select((eb) => ['agg.item', 'agg.count', eb.fn.max('d.last_hits').as('hits')])
    .groupBy(['agg.item', 'agg.count']);
  // Several rows at the same latest instant: the one with the most hits is the latest (isLater).
  query =
    which === 'noResults'
      ? query.having(sql`max(d.last_hits)`, '=', 0)
      : query.having(sql`max(d.last_hits)`, '>', 0);
  const rows = await query
    .orderBy('agg.count', 'desc')
    .orderBy('agg.item')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map((row) => ({ item: row.item, searches: n(row.count), hits: n(row.hits) }));
}

/** The rows of `kind` per item, ordered by `order` (most first, then item). */
export async function selectItems(
  db: Kysely<Database>,
  range: DayRange,
  kind: 'rule' | 'document',
  page: Page,
) {
  const order = kind === 'rule' ? sql`sum(searches)` : sql`sum(clicks)`;
  const rows = await days(db, range, kind)
    .select('item')
    .select(
      sums([
        'searches',
        'click_searches',
        'conversion_searches',
        'cart_searches',
        'clicks',
        'conversions',
        'carts',
      ]),
    )
    .groupBy('item')
    .orderBy(order, 'desc')
    .orderBy(sql`sum(conversions)`, 'desc')
    .orderBy('item')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map((row) => ({
    item: row.item,
    searches: n(row.searches),
    clickSearches: n(row.click_searches),
    conversionSearches: n(row.conversion_searches),
    cartSearches: n(row.cart_searches),
    clicks: n(row.clicks),
    conversions: n(row.conversions),
    carts: n(row.carts),
  }));
}

/** The profile's totals per day, or per hour, within the range. */
export async function selectTotals(db: Kysely<Database>, range: DayRange, interval: 'day' | 'hour') {
  const rows =
    interval === 'day'
      ? await days(db, range, 'total')
          .select([
            'day as at',
            'searches',
            'no_result_searches',
            'click_searches',
            'conversion_searches',
            'cart_searches',
          ])
          .execute()
      : await db
          .selectFrom('analytics_hour')
          .select([
            'hour as at',
            'searches',
            'no_result_searches',
            'click_searches',
            'conversion_searches',
            'cart_searches',
          ])
          .where('app', '=', range.app)
          .where('profile_id', '=', range.profileId)
          .where('kind', '=', 'total')
          .where('hour', '>=', range.from)
          .where('hour', '<', range.to + 24 * 3_600_000)
          .execute();
  return rows.map((row) => ({
    at: n(row.at),
    searches: n(row.searches),
    noResultSearches: n(row.no_result_searches),
    clickSearches: n(row.click_searches),
    conversionSearches: n(row.conversion_searches),
    cartSearches: n(row.cart_searches),
  }));
}
