// The SQL of an experiment's results: its variants' rollup rows (kind `variant`) summed over
// the days, and its shoppers counted from the response signals. Rows in, rows out.
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

export interface VariantCounts {
  item: string;
  searches: number;
  noResultSearches: number;
  clickSearches: number;
  conversionSearches: number;
}

/** The daily rollup rows of these variant items, summed per item over every day and profile of the app. */
export async function selectVariantCounts(
  db: Kysely<Database>,
  app: string,
  items: readonly string[],
): Promise<VariantCounts[]> {
  if (items.length === 0) return [];
  const rows = await db
    .selectFrom('analytics_day')
    .select((eb) => [
      'item',
      eb.fn.sum<number | string>('searches').as('searches'),
      eb.fn.sum<number | string>('no_result_searches').as('no_result_searches'),
      eb.fn.sum<number | string>('click_searches').as('click_searches'),
      eb.fn.sum<number | string>('conversion_searches').as('conversion_searches'),
    ])
    .where('app', '=', app)
    .where('kind', '=', 'variant')
    .where('item', 'in', items)
    .groupBy('item')
    .execute();
  return rows.map((row) => ({
    item: row.item,
    searches: Number(row.searches),
    noResultSearches: Number(row.no_result_searches),
    clickSearches: Number(row.click_searches),
    conversionSearches: Number(row.conversion_searches),
  }));
}

/** The distinct shoppers (hashed uniqueIdParameter values) of each variant's counted searches. */
export async function selectShoppers(
  db: Kysely<Database>,
  app: string,
  experiment: string,
): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('search_signal')
    .select((eb) => ['variant', eb.fn.count<number | string>('unit_hash').distinct().as('shoppers')])
    .where('app', '=', app)
    .where('experiment', '=', experiment)
    .where('counted', '=', 1)
    .where('unit_hash', 'is not', null)
    .groupBy('variant')
    .execute();
  return new Map(rows.map((row) => [row.variant ?? '', Number(row.shoppers)]));
}
