// The rollups of the raw signals: hourly and daily rows per profile and item, the hours a
// privacy delete left to roll again, and where the roll left off.

/** What a rollup row counts; which fields mean something depends on the row's kind. */
export interface RollupCounts {
  /** Counted searches (kind `search`, `total`), or searches a rule fired on (kind `rule`). */
  searches: number;
  /** Of those, searches answered with 0 hits. */
  no_result_searches: number;
  /** Of those, searches with at least one click. */
  click_searches: number;
  /** Of those, searches followed by a purchase. */
  conversion_searches: number;
  /** Of those, searches followed by an add to cart. */
  cart_searches: number;
  /** Click, purchase and cart signals attributed to those searches (of the document, kind `document`). */
  clicks: number;
  conversions: number;
  carts: number;
  /** The 1-based positions of the clicks whose position is known: their sum and number. */
  position_sum: number;
  position_count: number;
  /** The time and hits of the latest search (kind `search`). */
  last_at: number;
  last_hits: number;
}

/** The counts' columns, in the tables' order (the migration that made them keeps its own copy). */
export const COUNT_COLUMNS = [
  'searches',
  'no_result_searches',
  'click_searches',
  'conversion_searches',
  'cart_searches',
  'clicks',
  'conversions',
  'carts',
  'position_sum',
  'position_count',
  'last_at',
  'last_hits',
] as const satisfies ReadonlyArray<keyof RollupCounts>;

/**
 * `kind`: `total` (item ''), `search` (item = the query key), `rule` (item = rule id),
 * `document` (item = document id), `variant` (item = experiment id, U+0001, variant id). `hour` is the epoch ms of the hour's start (UTC).
 */
export interface AnalyticsHourTable extends RollupCounts {
  app: string;
  profile_id: string;
  kind: string;
  hour: number;
  item: string;
}

/** The sum of a day's hourly rows of the same item; `day` is the epoch ms of the UTC day's start. */
export interface AnalyticsDayTable extends RollupCounts {
  app: string;
  profile_id: string;
  kind: string;
  day: number;
  item: string;
}

/**
 * The change token of one profile's day of daily rows: a new random value in every
 * transaction that changes them, no row for a day that has none. The answers' cache compares
 * them on each request (answer-cache.ts).
 */
export interface AnalyticsDayVersionTable {
  app: string;
  profile_id: string;
  day: number;
  version: number;
}

/** An hour to roll again whatever the raw rows look like (a privacy delete touched it). */
export interface AnalyticsDirtyHourTable {
  app: string;
  profile_id: string;
  hour: number;
  marked_at: number;
}

/** Where the roll left off: `signals_received` = the received_at the last run read up to. */
export interface AnalyticsRollupStateTable {
  name: string;
  value: number;
}
