// The SQL of the analytics answers: a range of one profile's daily (or hourly) rows of one
// kind, summed per item, and the days' change tokens; each reads a range of a primary key.
import { type Kysely, type QueryCreator, sql } from 'kysely';
import type { Database } from '../storage/schema.js';
import { DAY_MS } from './rollup-repository.js';
import { COUNT_COLUMNS } from './tables.js';

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

/** The change tokens of a profile's days within `from`..`to` (days without rows have none). */
export async function selectDayVersions(db: Kysely<Database>, range: DayRange): Promise<Map<number, number>> {
  const rows = await db
    .selectFrom('analytics_day_version')
    .select(['day', 'version'])
    .where('app', '=', range.app)
    .where('profile_id', '=', range.profileId)
    .where('day', '>=', range.from)
    .where('day', '<=', range.to)
    .orderBy('day')
    .execute();
  return new Map(rows.map((row) => [n(row.day), n(row.version)]));
}

/** One item's counts summed over some days, with the time and hits of its latest search. */
export interface ItemSums {
  item: string;
  searches: number;
  clickSearches: number;
  conversionSearches: number;
  cartSearches: number;
  clicks: number;
  conversions: number;
  carts: number;
  positionSum: number;
  positionCount: number;
  lastAt: number;
  lastHits: number;
}

/** The counts an item's row answers with: all but the no-result count, which only totals need. */
const ITEM_COLUMNS = COUNT_COLUMNS.filter(
  (column): column is Exclude<(typeof COUNT_COLUMNS)[number], 'no_result_searches'> =>
    column !== 'no_result_searches',
);

/**
 * The rows of one kind within the range summed per item, in no order. A day's rows are read
 * as they are. Over several days, the hits of a search string's latest search are those of the
 * day row holding its latest instant (a day's row counts only searches of that day, so one row
 * holds it): one primary-key lookup per search string, not a second pass over the range.
 */
export async function selectItemSums(
  db: Kysely<Database>,
  range: DayRange,
  kind: 'search' | 'rule' | 'document',
): Promise<ItemSums[]> {
  const rows =
    range.from === range.to
      ? await days(db, range, kind)
          .select(['item', ...ITEM_COLUMNS])
          .execute()
      : await db
          .with('agg', (qb) =>
            days(qb, range, kind)
              .select((eb) => [
                'item',
                eb.fn.sum<number>('searches').as('searches'),
                eb.fn.sum<number>('click_searches').as('click_searches'),
                eb.fn.sum<number>('conversion_searches').as('conversion_searches'),
                eb.fn.sum<number>('cart_searches').as('cart_searches'),
                eb.fn.sum<number>('clicks').as('clicks'),
                eb.fn.sum<number>('conversions').as('conversions'),
                eb.fn.sum<number>('carts').as('carts'),
                eb.fn.sum<number>('position_sum').as('position_sum'),
                eb.fn.sum<number>('position_count').as('position_count'),
                eb.fn.max('last_at').as('last_at'),
              ])
              .groupBy('item'),
          )
          .selectFrom('agg')
          .selectAll('agg')
          .select((eb) =>
            (kind === 'search'
              ? eb
                  .selectFrom('analytics_day as d')
                  .select('d.last_hits')
                  .where('d.app', '=', range.app)
                  .where('d.profile_id', '=', range.profileId)
                  .where('d.kind', '=', kind)
                  .where('d.day', '=', sql<number>`agg.last_at - (agg.last_at % ${sql.lit(DAY_MS)})`)
                  .whereRef('d.item', '=', 'agg.item')
              : sql<number>`0`
            ).as('last_hits'),
          )
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
    positionSum: n(row.position_sum),
    positionCount: n(row.position_count),
    lastAt: n(row.last_at),
    lastHits: n(row.last_hits),
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
