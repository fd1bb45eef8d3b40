// The Analytics API's answers from the rollups, and the privacy delete. Definitions: docs/analytics.md.
import type { Kysely } from 'kysely';
import { NotFoundError, ValidationError } from '../http/errors.js';
import { getProfile } from '../query/profiles.js';
import { getRule } from '../rules/rule-edits.js';
import { shopperHash } from '../signals/shopper-hash.js';
import type { Store } from '../storage/database.js';
import type { Database } from '../storage/schema.js';
import { termKey } from '../text/term-key.js';
import { idList } from './aggregate.js';
import { AnswerCache, type ItemKind } from './answer-cache.js';
import { type DayRange, type ItemSums, type Page, selectTotals } from './answers-repository.js';
import { selectSearchWithSignals } from './drill-down-repository.js';
import { deleteShopperRows } from './privacy-repository.js';
import type { AnalyticsRollup } from './rollup-job.js';
import { DAY_MS, HOUR_MS, markDirtyHours } from './rollup-repository.js';
import type {
  Erasure,
  RateEntry,
  RuleEntry,
  SearchDetails,
  SearchDetailsQuery,
  TopSearch,
} from './schemas.js';

/** What each signal type adds to a document's counts. */
const DOCUMENT_COUNTS: Partial<Record<string, 'clickCount' | 'conversionCount' | 'addToCartCount'>> = {
  click: 'clickCount',
  purchase: 'conversionCount',
  cart: 'addToCartCount',
};

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Days a default range spans, today included. */
const DEFAULT_DAYS = 7;
/** The longest range asked for, in days: ten years, and 400 days by hour (9,600 entries). */
export const MAX_RANGE_DAYS = 3660;
export const MAX_HOURLY_RANGE_DAYS = 400;

/** A fraction, or null when there is nothing to divide by. */
export function rate(part: number, whole: number): number | null {
  return whole > 0 ? part / whole : null;
}

function parseDay(value: string, field: string): number {
  const [year, month, day] = value.split('-').map(Number) as [number, number, number];
  const at = Date.UTC(year, month - 1, day);
  const date = new Date(at);
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day)
    throw new ValidationError(
      [{ field, message: `${field} ${value} is not a day of the calendar` }],
      'invalid-parameter',
    );
  return at;
}

/** The UTC days of a request (inclusive), checked: default the 7 days up to today. */
export function dayRange(
  app: string,
  profileId: string,
  query: { startDate?: string | undefined; endDate?: string | undefined },
  now: Date,
  maxDays?: number,
): DayRange {
  const today = now.getTime() - (now.getTime() % DAY_MS);
  const to = query.endDate === undefined ? today : parseDay(query.endDate, 'endDate');
  const from =
    query.startDate === undefined ? to - (DEFAULT_DAYS - 1) * DAY_MS : parseDay(query.startDate, 'startDate');
  if (from > to)
    throw new ValidationError(
      [{ field: 'startDate', message: 'startDate must not be after endDate' }],
      'invalid-parameter',
    );
  const longest = maxDays ?? MAX_RANGE_DAYS;
  if ((to - from) / DAY_MS + 1 > longest)
    throw new ValidationError(
      [{ field: 'startDate', message: `the range must span at most ${longest} days` }],
      'invalid-parameter',
    );
  return { app, profileId, from, to };
}

function isoDay(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

function isoHour(at: number): string {
  return `${new Date(at).toISOString().slice(0, 13)}:00:00Z`;
}

/** The page of the entries that pass `keep`, in their order. */
function page<T>(
  entries: readonly T[],
  { limit, offset }: Page,
  keep: (entry: T) => boolean = () => true,
): T[] {
  const out: T[] = [];
  let skipped = 0;
  for (const entry of entries) {
    if (out.length >= limit) break;
    if (!keep(entry)) continue;
    if (skipped < offset) skipped++;
    else out.push(entry);
  }
  return out;
}

/** The analytics of one app's query profiles, read from the rollups. */
export class AnalyticsService {
  readonly #cache: AnswerCache;

  /** `reader` reads the long ranges (Store.reader); the sums it read are kept in memory. */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => Date,
    reader: Kysely<Database> = db,
  ) {
    this.#cache = new AnswerCache(db, reader);
  }

  /** The items of one kind in the range, summed and in the answer's order. */
  #ranked(range: DayRange, kind: ItemKind): Promise<readonly ItemSums[]> {
    return this.#cache.ranked(range, kind, this.now().getTime());
  }

  /** The range of a request on a profile that exists. */
  async #range(
    app: string,
    profileId: string,
    query: { startDate?: string; endDate?: string },
    maxDays?: number,
  ): Promise<DayRange> {
    const range = dayRange(app, profileId, query, this.now(), maxDays);
    await getProfile(this.db, app, profileId);
    return range;
  }

  async topSearches(app: string, profileId: string, query: { startDate?: string; endDate?: string } & Page) {
    const range = await this.#range(app, profileId, query);
    const rows = page(await this.#ranked(range, 'search'), query);
    const searches: TopSearch[] = rows.map((row) => ({
      search: row.item,
      count: row.searches,
      nbHits: row.lastHits,
      clickCount: row.clicks,
      clickThroughRate: rate(row.clickSearches, row.searches),
      averageClickPosition: row.positionCount > 0 ? row.positionSum / row.positionCount : null,
      conversionCount: row.conversionSearches,
      conversionRate: rate(row.conversionSearches, row.searches),
      addToCartCount: row.cartSearches,
      addToCartRate: rate(row.cartSearches, row.searches),
    }));
    return { searches };
  }

  async noResults(app: string, profileId: string, query: { startDate?: string; endDate?: string } & Page) {
    const range = await this.#range(app, profileId, query);
    const rows = page(await this.#ranked(range, 'search'), query, (row) => row.lastHits === 0);
    return { searches: rows.map((row) => ({ search: row.item, count: row.searches })) };
  }

  async noClicks(app: string, profileId: string, query: { startDate?: string; endDate?: string } & Page) {
    const range = await this.#range(app, profileId, query);
    const rows = page(
      await this.#ranked(range, 'search'),
      query,
      (row) => row.clickSearches === 0 && row.lastHits > 0,
    );
    return {
      searches: rows.map((row) => ({ search: row.item, count: row.searches, nbHits: row.lastHits })),
    };
  }

  /** One entry per day (or hour) of the range, those without searches too. */
  async rates(
    app: string,
    profileId: string,
    query: { startDate?: string; endDate?: string; interval: 'day' | 'hour' },
  ): Promise<{ dates: RateEntry[] }> {
    const range = await this.#range(
      app,
      profileId,
      query,
      query.interval === 'hour' ? MAX_HOURLY_RANGE_DAYS : MAX_RANGE_DAYS,
    );
    const byTime = new Map((await selectTotals(this.db, range, query.interval)).map((row) => [row.at, row]));
    const step = query.interval === 'day' ? DAY_MS : HOUR_MS;
    const label = query.interval === 'day' ? isoDay : isoHour;
    const dates: RateEntry[] = [];
    for (let at = range.from; at < range.to + DAY_MS; at += step) {
      const row = byTime.get(at);
      const searches = row?.searches ?? 0;
      dates.push({
        date: label(at),
        searchCount: searches,
        noResultRate: rate(row?.noResultSearches ?? 0, searches),
        clickThroughRate: rate(row?.clickSearches ?? 0, searches),
        conversionRate: rate(row?.conversionSearches ?? 0, searches),
        addToCartRate: rate(row?.cartSearches ?? 0, searches),
      });
    }
    return { dates };
  }

  async rules(app: string, profileId: string, query: { startDate?: string; endDate?: string } & Page) {
    const range = dayRange(app, profileId, query, this.now());
    const profile = await getProfile(this.db, app, profileId);
    const rows = page(await this.#ranked(range, 'rule'), query);
    const rules: RuleEntry[] = [];
    for (const row of rows)
      rules.push({
        id: row.item,
        name: profile.studio === undefined ? null : await this.#ruleName(profile.studio, row.item),
        firedCount: row.searches,
        clickThroughRate: rate(row.clickSearches, row.searches),
        conversionRate: rate(row.conversionSearches, row.searches),
        addToCartRate: rate(row.cartSearches, row.searches),
      });
    return { rules };
  }

  /**
   * One search's drill-down: the rules that fired on its counted searches in the range, and the
   * documents shoppers clicked, bought or put in a cart after them, from the raw rows (kept
   * for the raw retention), counted as the rules' and documents' answers count them.
   */
  async searchDetails(app: string, profileId: string, query: SearchDetailsQuery): Promise<SearchDetails> {
    const range = dayRange(app, profileId, query, this.now());
    const profile = await getProfile(this.db, app, profileId);
    const search = termKey(query.search);
    const bySearch = new Map<string, { ruleIds: string[]; types: Set<string> }>();
    const documents = new Map<
      string,
      { clickCount: number; conversionCount: number; addToCartCount: number }
    >();
    for (const row of await selectSearchWithSignals(this.db, range, search)) {
      let entry = bySearch.get(row.id);
      if (!entry) {
        entry = { ruleIds: [...new Set(idList(row.ruleIds))], types: new Set() };
        bySearch.set(row.id, entry);
      }
      if (row.type === null) continue;
      entry.types.add(row.type);
      if (row.docId === null || !DOCUMENT_COUNTS[row.type]) continue;
      const document = documents.get(row.docId) ?? { clickCount: 0, conversionCount: 0, addToCartCount: 0 };
      document[DOCUMENT_COUNTS[row.type]!]++;
      documents.set(row.docId, document);
    }
    const fired = new Map<string, { searches: number; clicks: number; purchases: number; carts: number }>();
    for (const { ruleIds, types } of bySearch.values())
      for (const id of ruleIds) {
        const rule = fired.get(id) ?? { searches: 0, clicks: 0, purchases: 0, carts: 0 };
        rule.searches++;
        if (types.has('click')) rule.clicks++;
        if (types.has('purchase')) rule.purchases++;
        if (types.has('cart')) rule.carts++;
        fired.set(id, rule);
      }
    const rules: RuleEntry[] = [];
    for (const [id, rule] of [...fired]
      .sort(([a, x], [b, y]) => y.searches - x.searches || compare(a, b))
      .slice(0, query.limit))
      rules.push({
        id,
        name: profile.studio === undefined ? null : await this.#ruleName(profile.studio, id),
        firedCount: rule.searches,
        clickThroughRate: rate(rule.clicks, rule.searches),
        conversionRate: rate(rule.purchases, rule.searches),
        addToCartRate: rate(rule.carts, rule.searches),
      });
    return {
      search,
      count: bySearch.size,
      rules,
      documents: [...documents]
        .map(([docId, counts]) => ({ docId, ...counts }))
        .sort(
          (a, b) =>
            b.clickCount - a.clickCount || b.conversionCount - a.conversionCount || compare(a.docId, b.docId),
        )
        .slice(0, query.limit),
    };
  }

  async #ruleName(studioId: string, ruleId: string): Promise<string | null> {
    try {
      const { rule } = await getRule(this.db, studioId, ruleId);
      return (rule.live ?? rule.staging).name;
    } catch (error) {
      if (error instanceof NotFoundError) return null;
      throw error;
    }
  }

  async documents(app: string, profileId: string, query: { startDate?: string; endDate?: string } & Page) {
    const range = await this.#range(app, profileId, query);
    const rows = page(await this.#ranked(range, 'document'), query);
    return {
      documents: rows.map((row) => ({
        docId: row.item,
        clickCount: row.clicks,
        conversionCount: row.conversions,
        addToCartCount: row.carts,
      })),
    };
  }
}

/**
 * Erases one shopper's raw searches and signals of an app, then rolls the hours they were
 * counted in again from what remains, so they count in no answer. The marks left for the
 * rollup job make any roll that read the raw rows before the delete roll those hours again.
 */
export async function eraseShopper(
  store: Store,
  rollup: AnalyticsRollup,
  hashKey: Uint8Array,
  app: string,
  userId: string,
  now: Date,
): Promise<Erasure> {
  const erased = await store.db.transaction().execute(async (trx) => {
    const result = await deleteShopperRows(trx, app, shopperHash(hashKey, userId));
    await markDirtyHours(trx, result.hours, now.getTime());
    return result;
  });
  await rollup.rollHours(erased.hours);
  return { searches: erased.searches, signals: erased.signals };
}
