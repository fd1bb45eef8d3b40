import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { AnswerCache, compareText, splitRange } from '../../src/analytics/answer-cache.js';
import type { ItemSums } from '../../src/analytics/answers-repository.js';
import { markDayChanged, pruneRollups, writeDayRows } from '../../src/analytics/rollup-repository.js';
import { AnalyticsService } from '../../src/analytics/service.js';
import type { RollupCounts } from '../../src/analytics/tables.js';
import { build, engines, skipReason } from '../helpers/app.js';
import { APP, createProfile, PROFILE } from './seed.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const D0 = Date.UTC(2026, 2, 1);
const DAYS = 9;
const iso = (at: number) => new Date(at).toISOString().slice(0, 10);
const rate = (part: number, whole: number) => (whole > 0 ? part / whole : null);

type Kind = 'search' | 'rule' | 'document';
// Names whose order differs between UTF-16 code units and code points, and by case.
const item = fc.constantFrom('shoes', 'Shoes', 'hat', 'red hat', 'ﬀ', '😀', 'é', 'e');
const row = fc.record({
  item,
  searches: fc.integer({ min: 1, max: 4 }),
  click_searches: fc.integer({ min: 0, max: 2 }),
  conversion_searches: fc.integer({ min: 0, max: 2 }),
  cart_searches: fc.integer({ min: 0, max: 1 }),
  clicks: fc.integer({ min: 0, max: 3 }),
  conversions: fc.integer({ min: 0, max: 2 }),
  carts: fc.integer({ min: 0, max: 1 }),
  position_sum: fc.integer({ min: 0, max: 9 }),
  position_count: fc.integer({ min: 0, max: 3 }),
  // Within the day, as a day's row only counts that day's searches.
  offset: fc.integer({ min: 0, max: DAY - 1 }),
  last_hits: fc.constantFrom(0, 0, 3, 10),
});
const kind = fc.constantFrom<Kind>('search', 'rule', 'document');
const op = fc.oneof(
  {
    arbitrary: fc.record({
      op: fc.constant('write' as const),
      kind,
      day: fc.nat(DAYS - 1),
      rows: fc.uniqueArray(row, { selector: (r) => r.item, minLength: 1, maxLength: 6 }),
      gone: fc.uniqueArray(item, { maxLength: 3 }),
    }),
    weight: 4,
  },
  { arbitrary: fc.record({ op: fc.constant('prune' as const), day: fc.nat(3) }), weight: 1 },
  {
    arbitrary: fc.record({ op: fc.constant('tick' as const), hours: fc.integer({ min: 1, max: 40 }) }),
    weight: 1,
  },
  {
    arbitrary: fc.record({
      op: fc.constant('ask' as const),
      node: fc.nat(1),
      answer: fc.constantFrom('searches', 'noResults', 'noClicks', 'rules', 'documents'),
      // Few ranges, so that a node asks one again after a change.
      from: fc.constantFrom(0, 2, 5),
      days: fc.constantFrom(0, 3, 8),
      limit: fc.integer({ min: 1, max: 10 }),
      offset: fc.nat(3),
    }),
    weight: 5,
  },
);

for (const engine of engines) {
  describe(`the answers kept in memory on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('equal the answers summed plainly from the daily rows, through changes, deletes and prunes, on two nodes', async (t) => {
      let clock = D0 + 4 * DAY + 12 * HOUR;
      const now = () => new Date(clock);
      const { app, store } = await build(t, engine, { now });
      await createProfile(app);
      const db = store.db;

      /** The range's rows of a kind summed per item, the way the answers read before: plainly. */
      async function plainly(kindOf: Kind, from: number, to: number): Promise<ItemSums[]> {
        const rows = await db
          .selectFrom('analytics_day')
          .selectAll()
          .where('app', '=', APP)
          .where('profile_id', '=', PROFILE)
          .where('kind', '=', kindOf)
          .where('day', '>=', from)
          .where('day', '<=', to)
          .execute();
        const byItem = new Map<string, ItemSums>();
        for (const r of rows) {
          const s = byItem.get(r.item) ?? {
            item: r.item,
            searches: 0,
            clickSearches: 0,
            conversionSearches: 0,
            cartSearches: 0,
            clicks: 0,
            conversions: 0,
            carts: 0,
            positionSum: 0,
            positionCount: 0,
            lastAt: -1,
            lastHits: 0,
          };
          s.searches += Number(r.searches);
          s.clickSearches += Number(r.click_searches);
          s.conversionSearches += Number(r.conversion_searches);
          s.cartSearches += Number(r.cart_searches);
          s.clicks += Number(r.clicks);
          s.conversions += Number(r.conversions);
          s.carts += Number(r.carts);
          s.positionSum += Number(r.position_sum);
          s.positionCount += Number(r.position_count);
          const at = Number(r.last_at);
          const hits = Number(r.last_hits);
          if (at > s.lastAt || (at === s.lastAt && hits > s.lastHits)) {
            s.lastAt = at;
            s.lastHits = hits;
          }
          byItem.set(r.item, s);
        }
        // Ties in the database's own order of the names, as ORDER BY item had them.
        const names = (
          await db.selectFrom('analytics_day').select('item').distinct().orderBy('item').execute()
        ).map((r) => r.item);
        const rank = (name: string) => names.indexOf(name);
        const first = (a: number, b: number) => b - a;
        return [...byItem.values()].sort((a, b) =>
          kindOf === 'search'
            ? first(a.searches, b.searches) || rank(a.item) - rank(b.item)
            : kindOf === 'rule'
              ? first(a.searches, b.searches) ||
                first(a.conversions, b.conversions) ||
                rank(a.item) - rank(b.item)
              : first(a.clicks, b.clicks) ||
                first(a.conversions, b.conversions) ||
                rank(a.item) - rank(b.item),
        );
      }

      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 10, maxLength: 40, size: 'max' }), async (ops) => {
          clock = D0 + 4 * DAY + 12 * HOUR;
          await db.deleteFrom('analytics_day').execute();
          await db.deleteFrom('analytics_day_version').execute();
          // Two nodes: each its own memory, one database.
          const nodes = [
            new AnalyticsService(db, now, store.reader),
            new AnalyticsService(db, now, store.reader),
          ];
          for (const step of ops) {
            if (step.op === 'tick') clock += step.hours * HOUR;
            else if (step.op === 'prune') await pruneRollups(db, D0 + step.day * DAY);
            else if (step.op === 'write') {
              const day = D0 + step.day * DAY;
              const rows = step.rows.map(({ item: name, offset, ...counts }) => ({
                item: name,
                counts: { ...counts, last_at: day + offset } as RollupCounts,
              }));
              const gone = step.gone.filter((g) => !step.rows.some((r) => r.item === g));
              // As the roll of an hour writes a day: its rows and its token in one transaction.
              await db.transaction().execute(async (trx) => {
                await writeDayRows(trx, APP, PROFILE, step.kind, day, rows, gone);
                await markDayChanged(trx, APP, PROFILE, day);
              });
            } else {
              const from = D0 + step.from * DAY;
              const to = Math.min(from + step.days * DAY, D0 + (DAYS - 1) * DAY);
              const query = {
                startDate: iso(from),
                endDate: iso(to),
                limit: step.limit,
                offset: step.offset,
              };
              const node = nodes[step.node]!;
              const page = <T>(list: T[]) => list.slice(step.offset, step.offset + step.limit);
              if (step.answer === 'searches')
                assert.deepEqual(
                  (await node.topSearches(APP, PROFILE, query)).searches,
                  page(await plainly('search', from, to)).map((s) => ({
                    search: s.item,
                    count: s.searches,
                    nbHits: s.lastHits,
                    clickCount: s.clicks,
                    clickThroughRate: rate(s.clickSearches, s.searches),
                    averageClickPosition: s.positionCount > 0 ? s.positionSum / s.positionCount : null,
                    conversionCount: s.conversionSearches,
                    conversionRate: rate(s.conversionSearches, s.searches),
                    addToCartCount: s.cartSearches,
                    addToCartRate: rate(s.cartSearches, s.searches),
                  })),
                );
              else if (step.answer === 'noResults')
                assert.deepEqual(
                  (await node.noResults(APP, PROFILE, query)).searches,
                  page((await plainly('search', from, to)).filter((s) => s.lastHits === 0)).map((s) => ({
                    search: s.item,
                    count: s.searches,
                  })),
                );
              else if (step.answer === 'noClicks')
                assert.deepEqual(
                  (await node.noClicks(APP, PROFILE, query)).searches,
                  page(
                    (await plainly('search', from, to)).filter(
                      (s) => s.clickSearches === 0 && s.lastHits > 0,
                    ),
                  ).map((s) => ({ search: s.item, count: s.searches, nbHits: s.lastHits })),
                );
              else if (step.answer === 'rules')
                assert.deepEqual(
                  (await node.rules(APP, PROFILE, query)).rules,
                  page(await plainly('rule', from, to)).map((s) => ({
                    id: s.item,
                    name: null,
                    firedCount: s.searches,
                    clickThroughRate: rate(s.clickSearches, s.searches),
                    conversionRate: rate(s.conversionSearches, s.searches),
                    addToCartRate: rate(s.cartSearches, s.searches),
                  })),
                );
              else
                assert.deepEqual(
                  (await node.documents(APP, PROFILE, query)).documents,
                  page(await plainly('document', from, to)).map((s) => ({
                    docId: s.item,
                    clickCount: s.clicks,
                    conversionCount: s.conversions,
                    addToCartCount: s.carts,
                  })),
                );
            }
          }
        }),
        { numRuns: 30 },
      );
    });
  });
}

describe('the answers kept in memory on sqlite', () => {
  test('are read once for requests of one range at the same time, and not again while nothing changed', async (t) => {
    const now = D0 + 4 * DAY + 12 * HOUR;
    const { app, store } = await build(t, 'sqlite', { now: () => new Date(now) });
    await createProfile(app);
    const counts = { searches: 1, no_result_searches: 0, click_searches: 0, conversion_searches: 0 };
    const rest = {
      cart_searches: 0,
      clicks: 0,
      conversions: 0,
      carts: 0,
      position_sum: 0,
      position_count: 0,
    };
    for (const day of [D0, D0 + 3 * DAY])
      await store.db.transaction().execute(async (trx) => {
        const row = { ...counts, ...rest, last_at: day + HOUR, last_hits: 2 };
        await writeDayRows(trx, APP, PROFILE, 'search', day, [{ item: 'hat', counts: row }], []);
        await markDayChanged(trx, APP, PROFILE, day);
      });
    let reads = 0;
    const reader = new Proxy(store.reader, {
      get(target, name) {
        if (name === 'selectFrom' || name === 'with') reads++;
        const value = Reflect.get(target, name, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const cache = new AnswerCache(store.db, reader);
    const range = { app: APP, profileId: PROFILE, from: D0, to: D0 + 4 * DAY };
    const blocks = splitRange(range.from, range.to, now).length;
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => cache.ranked(range, 'search', now)));
    assert.equal(reads, blocks);
    assert.equal(a, b);
    assert.equal(b, c);
    assert.deepEqual(
      a!.map((s) => [s.item, s.searches, s.lastHits]),
      [['hat', 2, 2]],
    );
    await cache.ranked(range, 'search', now);
    assert.equal(reads, blocks);
  });
});

describe('the blocks a range is read in', () => {
  test('are the settled days as one, each day within the rollup’s reach, and the days after today', () => {
    const now = D0 + 10 * DAY + 12 * HOUR;
    assert.deepEqual(splitRange(D0, D0 + 11 * DAY, now), [
      { from: D0, to: D0 + 7 * DAY },
      { from: D0 + 8 * DAY, to: D0 + 8 * DAY },
      { from: D0 + 9 * DAY, to: D0 + 9 * DAY },
      { from: D0 + 10 * DAY, to: D0 + 10 * DAY },
      { from: D0 + 11 * DAY, to: D0 + 11 * DAY },
    ]);
    assert.deepEqual(splitRange(D0, D0 + 3 * DAY, now), [{ from: D0, to: D0 + 3 * DAY }]);
  });

  test('order names by code points, as both engines order text', () => {
    const names = ['😀', 'ﬀ', 'é', 'e', 'Shoes', 'shoes', ''];
    assert.deepEqual([...names].sort(compareText), ['', 'Shoes', 'e', 'shoes', 'é', 'ﬀ', '😀']);
  });
});
