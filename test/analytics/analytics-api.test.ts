import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { experimentVariants } from '../../src/analytics/privacy-repository.js';
import {
  adminAuth,
  build,
  buildNodes,
  contractTest,
  engines,
  freshStore,
  skipReason,
} from '../helpers/app.js';
import { basic, createUser, PASSWORD } from '../users/helpers.js';
import type { Seeded } from './reference.js';
import * as reference from './reference.js';
import { analytics, createProfile, insertSearches, insertSignals } from './seed.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
// The app's clock: noon of 2026-03-10 (UTC); the seeded searches are within the last two days.
const NOW = Date.UTC(2026, 2, 10, 12);
const D8 = Date.UTC(2026, 2, 8);
const D9 = Date.UTC(2026, 2, 9);
const D10 = Date.UTC(2026, 2, 10);

/** A shop's two days: known searches, clicks, carts and purchases. */
async function seedShop(db: Parameters<typeof insertSearches>[0]): Promise<Seeded> {
  const searches = [
    // "shoes": 3 counted searches on the 9th and one on the 10th; the latest has 40 hits.
    { at: D9 + 10 * HOUR, query: 'shoes', hits: 50, docIds: ['d1', 'd2', 'd3'], ruleIds: ['boost'] },
    { at: D9 + 10 * HOUR + 60_000, query: 'Shoes', hits: 50, docIds: ['d2', 'd1'], ruleIds: ['boost'] },
    { at: D9 + 23 * HOUR + 59 * 60_000, query: 'shoes', hits: 45, docIds: ['d1'] },
    { at: D10 + 1 * HOUR, query: 'shoes', hits: 40, docIds: ['d3', 'd1'], ruleIds: ['boost', 'pin'] },
    // "hat": no hits at first, then some, then none again (latest: none).
    { at: D9 + 11 * HOUR, query: 'hat', hits: 0 },
    { at: D10 + 2 * HOUR, query: 'hat', hits: 3, docIds: ['h1'] },
    { at: D10 + 3 * HOUR, query: 'hat', hits: 0 },
    // "socks": hits, never clicked.
    { at: D10 + 4 * HOUR, query: 'socks', hits: 7, docIds: ['s1'] },
    // Not counted (a user's query in the console), and another profile's: in no answer.
    { at: D10 + 4 * HOUR, query: 'shoes', hits: 50, docIds: ['d1'], counted: false },
    { at: D10 + 4 * HOUR, query: 'shoes', hits: 50, docIds: ['d1'], profile: 'other' },
    // Before the range asked for below.
    { at: D8 + 20 * HOUR, query: 'coat', hits: 9, docIds: ['c1'] },
  ].map((s) => ({ ...s, id: `${s.query}-${s.at}-${s.counted ?? ''}-${s.profile ?? ''}` }));
  await insertSearches(db, searches);
  const [s1, s2, s3, s4, , hat2, , , uncounted] = searches.map((s) => s.id);
  const signals = [
    // s1: two clicks (d2 at position 2, d3 at position 3), a cart and a purchase.
    { queryId: s1!, type: 'click', docId: 'd2', at: D9 + 10 * HOUR + 5000 },
    { queryId: s1!, type: 'click', docId: 'd3', position: 9, at: D9 + 10 * HOUR + 6000 },
    { queryId: s1!, type: 'cart', docId: 'd2', at: D9 + 10 * HOUR + 7000 },
    { queryId: s1!, type: 'purchase', docId: 'd2', at: D9 + 10 * HOUR + 8000 },
    // s2: a click on a document not on its page: the position sent (4) counts.
    { queryId: s2!, type: 'click', docId: 'dx', position: 4, at: D9 + 10 * HOUR + 70_000 },
    // s3: a purchase only. s4: a click without any position known, and a custom signal.
    { queryId: s3!, type: 'purchase', docId: 'd1', at: D10 + 5 * HOUR },
    { queryId: s4!, type: 'click', docId: 'zz', at: D10 + 1 * HOUR + 1000 },
    { queryId: s4!, type: 'wishlist', docId: 'd3', at: D10 + 1 * HOUR + 2000 },
    // hat's second search: a click.
    { queryId: hat2!, type: 'click', docId: 'h1', at: D10 + 2 * HOUR + 1000 },
    // On an uncounted search, and unattributed: in no answer.
    { queryId: uncounted!, type: 'click', docId: 'd1', at: D10 + 4 * HOUR + 1000 },
    { queryId: null, type: 'click', docId: 'd1', at: D10 + 4 * HOUR + 2000 },
  ];
  await insertSignals(db, signals);
  return { searches, signals };
}

const RANGE = 'startDate=2026-03-09&endDate=2026-03-10';

/** The top searches and the hourly rates of the range are the reference's over these rows. */
async function answersAreOf(app: FastifyInstance, seeded: Seeded) {
  assert.deepEqual(
    (await analytics(app, `/searches?${RANGE}`)).body.searches,
    reference.topSearches(seeded, D9, D10),
  );
  assert.deepEqual(
    (await analytics(app, `/rates?${RANGE}&interval=hour`)).body.dates,
    reference.rates(seeded, D9, D10, 'hour'),
  );
}

/** A privacy delete of one shopper's rows in the shop, sent with these credentials. */
function eraseShopper(app: FastifyInstance, userId: string, authorization: string) {
  return app.inject({
    method: 'DELETE',
    url: `/api/apps/shop/signals?user_id=${userId}`,
    headers: { authorization },
  });
}

for (const engine of engines) {
  describe(`the Analytics API on ${engine}`, { skip: await skipReason(engine) }, () => {
    const contract = contractTest(engine);

    async function shop(t: Parameters<typeof build>[0]) {
      let clock = NOW;
      const built = await build(t, engine, { now: () => new Date(clock) });
      await createProfile(built.app);
      const seeded = await seedShop(built.store.db);
      await built.app.parts.analytics.rollChanged();
      return { ...built, seeded, advance: (ms: number) => (clock += ms) };
    }

    test('answers every endpoint exactly as computed from the raw rows', async (t) => {
      const { app, seeded } = await shop(t);
      const top = await analytics(app, `/searches?${RANGE}`);
      assert.equal(top.status, 200, JSON.stringify(top.body));
      assert.deepEqual(top.body.searches, reference.topSearches(seeded, D9, D10));
      // The same, written out for "shoes": 4 searches, 3 clicks on 2 searches, positions 2, 4 (sent), unknown.
      assert.deepEqual(top.body.searches[0], {
        search: 'shoes',
        count: 4,
        nbHits: 40,
        clickCount: 4,
        clickThroughRate: 3 / 4,
        averageClickPosition: (2 + 3 + 4) / 3,
        conversionCount: 2,
        conversionRate: 2 / 4,
        addToCartCount: 1,
        addToCartRate: 1 / 4,
      });
      assert.deepEqual((await analytics(app, `/searches/no-results?${RANGE}`)).body, {
        searches: [{ search: 'hat', count: 3 }],
      });
      assert.deepEqual((await analytics(app, `/searches/no-clicks?${RANGE}`)).body, {
        searches: [{ search: 'socks', count: 1, nbHits: 7 }],
      });
      assert.deepEqual(
        (await analytics(app, `/rates?${RANGE}`)).body.dates,
        reference.rates(seeded, D9, D10, 'day'),
      );
      const hourly = (await analytics(app, `/rates?${RANGE}&interval=hour`)).body.dates;
      assert.equal(hourly.length, 48);
      assert.deepEqual(hourly, reference.rates(seeded, D9, D10, 'hour'));
      assert.deepEqual(hourly[10], {
        date: '2026-03-09T10:00:00Z',
        searchCount: 2,
        noResultRate: 0,
        clickThroughRate: 1,
        conversionRate: 0.5,
        addToCartRate: 0.5,
      });
      assert.deepEqual(hourly[0]?.noResultRate, null, 'an hour without searches has no rates');
      assert.deepEqual(
        (await analytics(app, `/rules?${RANGE}`)).body.rules,
        reference.rules(seeded, D9, D10),
      );
      assert.deepEqual(
        (await analytics(app, `/documents?${RANGE}`)).body.documents,
        reference.documents(seeded, D9, D10),
      );
      // A search's drill-down: its rules and documents, as the lists above count them for it alone.
      const shoes: Seeded = {
        searches: seeded.searches.filter((s) => s.query.toLowerCase() === 'shoes'),
        signals: seeded.signals,
      };
      const details = await analytics(app, `/searches/details?search=%20SHOES&${RANGE}`);
      assert.equal(details.status, 200, JSON.stringify(details.body));
      assert.deepEqual(details.body, {
        search: 'shoes',
        count: 4,
        rules: reference.rules(shoes, D9, D10),
        documents: reference.documents(shoes, D9, D10),
      });
      assert.deepEqual(
        details.body.rules.map((r: { id: string; firedCount: number }) => [r.id, r.firedCount]),
        [
          ['boost', 3],
          ['pin', 1],
        ],
      );
      const limited = await analytics(app, `/searches/details?search=shoes&limit=1&${RANGE}`);
      assert.equal(limited.body.rules.length, 1);
      assert.equal(limited.body.documents.length, 1);
      assert.deepEqual((await analytics(app, `/searches/details?search=nothing&${RANGE}`)).body, {
        search: 'nothing',
        count: 0,
        rules: [],
        documents: [],
      });
      assert.equal((await analytics(app, `/searches/details?${RANGE}`)).status, 400, 'search is required');
    });

    test('endDate is included, days are UTC, and the range defaults to the last 7 days', async (t) => {
      const { app, seeded } = await shop(t);
      const ninth = await analytics(app, '/searches?startDate=2026-03-09&endDate=2026-03-09');
      assert.deepEqual(ninth.body.searches, reference.topSearches(seeded, D9, D9));
      // 23:59 of the 9th counts on the 9th, 01:00 of the 10th on the 10th.
      assert.equal(ninth.body.searches.find((s: { search: string }) => s.search === 'shoes').count, 3);
      const byDefault = await analytics(app, '/searches');
      assert.deepEqual(byDefault.body.searches, reference.topSearches(seeded, D10 - 6 * DAY, D10));
      assert.ok(byDefault.body.searches.some((s: { search: string }) => s.search === 'coat'));
      const onlyEnd = await analytics(app, '/rates?endDate=2026-03-09');
      assert.equal(onlyEnd.body.dates.length, 7);
      assert.equal(onlyEnd.body.dates[6].date, '2026-03-09');
    });

    test('limit and offset page the answers', async (t) => {
      const { app, seeded } = await shop(t);
      const all = reference.topSearches(seeded, D9, D10);
      const pages = [];
      for (let offset = 0; offset < all.length + 1; offset += 2)
        pages.push(...(await analytics(app, `/searches?${RANGE}&limit=2&offset=${offset}`)).body.searches);
      assert.deepEqual(pages, all);
      assert.equal((await analytics(app, `/documents?${RANGE}&limit=1`)).body.documents.length, 1);
    });

    contract('bad ranges and pages are answered 400 with the common body', async (t) => {
      const { app } = await build(t, engine);
      await createProfile(app);
      for (const query of [
        'startDate=2026-3-9',
        'endDate=2026-02-30',
        'startDate=2026-03-10&endDate=2026-03-09',
        'limit=0',
        'limit=1001',
        'offset=-1',
        'interval=week',
        'startDate=2000-01-01&endDate=2026-03-09',
        'interval=hour&startDate=2025-01-01&endDate=2026-03-09',
        'unknown=1',
      ]) {
        const path = query.startsWith('interval') ? `/rates?${query}` : `/searches?${query}`;
        const answer = await analytics(app, path);
        assert.equal(answer.status, 400, `${query}: ${JSON.stringify(answer.body)}`);
        assert.ok(['invalid-parameter'].includes(answer.body.code), `${query}: ${answer.body.code}`);
        assert.ok(answer.body.message && answer.body.timestamp, query);
      }
      assert.equal((await analytics(app, '/searches?limit=1000')).status, 200);
      const missing = await app.inject({
        url: '/api/apps/shop/analytics/nope/searches',
        headers: { authorization: adminAuth },
      });
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.json().code, 'not-found');
    });

    test('rows that arrive after their hour was rolled are rolled in', async (t) => {
      const { app, store, seeded, advance } = await shop(t);
      const before = (await analytics(app, `/searches?${RANGE}`)).body.searches;
      // A search of an hour rolled long ago (a node's late batch) and a click on an old search.
      const [late] = await insertSearches(store.db, [{ at: D9 + 13 * HOUR, query: 'socks', hits: 7 }]);
      await insertSignals(store.db, [
        { queryId: seeded.searches[4]!.id, type: 'click', docId: 'x', at: NOW, receivedAt: NOW },
      ]);
      seeded.searches.push({ id: late!, at: D9 + 13 * HOUR, query: 'socks', hits: 7 });
      seeded.signals.push({ queryId: seeded.searches[4]!.id, type: 'click', docId: 'x', at: NOW });
      await app.parts.analytics.rollChanged();
      // The click is in at once (received after the last roll); the search an hour later, when
      // the hourly look-back over two days compares raw and rolled counts.
      let now = (await analytics(app, `/searches?${RANGE}`)).body.searches;
      assert.equal(now.find((s: { search: string }) => s.search === 'hat').clickCount, 2);
      assert.deepEqual(
        now.find((s: { search: string }) => s.search === 'socks'),
        before.find((s: { search: string }) => s.search === 'socks'),
      );
      advance(HOUR);
      await app.parts.analytics.rollChanged();
      now = (await analytics(app, `/searches?${RANGE}`)).body.searches;
      assert.deepEqual(now, reference.topSearches(seeded, D9, D10));
      assert.deepEqual(
        (await analytics(app, `/rates?${RANGE}`)).body.dates,
        reference.rates(seeded, D9, D10, 'day'),
      );
    });

    test("the privacy delete erases a shopper's searches and signals, raw and rolled up", async (t) => {
      const { app, store, seeded, advance } = await shop(t);
      const ids = await insertSearches(store.db, [
        { at: D10 + 1 * HOUR + 5, query: 'shoes', hits: 40, docIds: ['d1'], user: 'alice' },
        { at: D10 + 6 * HOUR, query: 'secret gift', hits: 2, docIds: ['g1'], user: 'alice' },
      ]);
      await insertSignals(store.db, [
        { queryId: ids[0]!, type: 'click', docId: 'd1', at: D10 + 1 * HOUR + 10, user: 'alice' },
        // Alice's click on someone else's search, and Bob's click on Alice's search: both go.
        {
          queryId: seeded.searches[7]!.id,
          type: 'click',
          docId: 's1',
          at: D10 + 4 * HOUR + 10,
          user: 'alice',
        },
        { queryId: ids[1]!, type: 'click', docId: 'g1', at: D10 + 6 * HOUR + 10, user: 'bob' },
      ]);
      advance(HOUR);
      await app.parts.analytics.rollChanged();
      const during = (await analytics(app, `/searches?${RANGE}`)).body.searches;
      assert.equal(during.find((s: { search: string }) => s.search === 'shoes').count, 5);
      assert.ok(during.some((s: { search: string }) => s.search === 'secret gift'));

      const viewer = await createUser(app, 'view', 'viewer').then(() => basic('view', PASSWORD));
      const refused = await eraseShopper(app, 'alice', viewer);
      assert.equal(refused.statusCode, 403);
      const erased = await eraseShopper(app, 'alice', adminAuth);
      assert.equal(erased.statusCode, 200, erased.body);
      assert.deepEqual(erased.json(), { searches: 2, signals: 3 });
      // At once, without waiting for the job: exactly the answers without Alice's rows.
      await answersAreOf(app, seeded);
      assert.deepEqual(
        (await analytics(app, `/documents?${RANGE}`)).body.documents,
        reference.documents(seeded, D9, D10),
      );
      assert.equal(
        Number(
          (
            await store.db
              .selectFrom('analytics_day')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('item', '=', 'secret gift')
              .executeTakeFirst()
          )?.n,
        ),
        0,
        'no rollup row keeps the search string',
      );
      // The job's next run changes nothing, and a second request erases nothing.
      await app.parts.analytics.rollChanged();
      assert.deepEqual(
        (await analytics(app, `/searches?${RANGE}`)).body.searches,
        reference.topSearches(seeded, D9, D10),
      );
      const again = await eraseShopper(app, 'alice', adminAuth);
      assert.deepEqual(again.json(), { searches: 0, signals: 0 });
    });

    test("the privacy delete also erases the searches an experiment's own parameter assigned, by that value", async (t) => {
      const { app, store, seeded, advance } = await shop(t);
      // A visitor known only by the experiment's parameter (`visitor`), with no user id.
      const unit = (value: string) => ({ id: 'ab', variant: 'b', unit: value });
      const visitor = [
        { at: D10 + 1 * HOUR + 5, query: 'shoes', hits: 40, docIds: ['d1'], experiment: unit('v1') },
        { at: D10 + 7 * HOUR, query: 'my name', hits: 1, docIds: ['n1'], experiment: unit('v1') },
      ];
      const other = {
        at: D10 + 7 * HOUR + 5,
        query: 'boots',
        hits: 3,
        docIds: ['b1'],
        experiment: unit('v2'),
      };
      const ids = await insertSearches(store.db, [...visitor, other]);
      await insertSignals(store.db, [
        { queryId: ids[1]!, type: 'click', docId: 'n1', at: D10 + 7 * HOUR + 9 },
      ]);
      seeded.searches.push({ ...other, id: ids[2]! });
      advance(HOUR);
      await app.parts.analytics.rollChanged();
      const during = (await analytics(app, `/searches?${RANGE}`)).body.searches;
      assert.ok(during.some((s: { search: string }) => s.search === 'my name'));

      const erased = await eraseShopper(app, 'v1', adminAuth);
      assert.equal(erased.statusCode, 200, erased.body);
      assert.deepEqual(erased.json(), { searches: 2, signals: 1 });
      const left = await store.db.selectFrom('search_signal').select('id').where('id', 'in', ids).execute();
      assert.deepEqual(
        left.map((row) => row.id),
        [ids[2]],
        "another visitor's search stays",
      );
      // Rolled again at once: the answers are those without the visitor's rows.
      await answersAreOf(app, seeded);
    });

    test("the privacy delete finds an experiment's searches along the experiments' index, not by reading the table", async (t) => {
      const fresh = await freshStore(engine);
      t.after(() => fresh.close());
      const db = fresh.store.db;
      // Each step of the skip from one experiment and variant to the next, and the seek in each.
      const steps = [
        sql`select experiment from search_signal where app = 'shop' and experiment > 'e' order by experiment limit 1`,
        sql`select variant from search_signal where app = 'shop' and experiment = 'e' and variant > 'b' order by variant limit 1`,
        sql`select id from search_signal where app = 'shop' and experiment = 'e' and variant = 'b' and unit_hash = 'h'`,
      ];
      for (const step of steps) {
        if (engine === 'sqlite') {
          const plan = (await sql<{ detail: string }>`explain query plan ${step}`.execute(db)).rows
            .map((r) => r.detail)
            .join('\n');
          assert.match(plan, /INDEX search_signal_by_experiment/);
          assert.doesNotMatch(plan, /TEMP B-TREE/, 'the index gives the order');
        } else {
          // An empty table is cheapest to scan; the question is whether the index can serve.
          await db.connection().execute(async (connection) => {
            await sql`set enable_seqscan = off`.execute(connection);
            const plan = (await sql<{ 'QUERY PLAN': string }>`explain ${step}`.execute(connection)).rows
              .map((r) => r['QUERY PLAN'])
              .join('\n');
            await sql`reset enable_seqscan`.execute(connection);
            assert.match(plan, /search_signal_by_experiment/);
            assert.doesNotMatch(plan, /Sort/, 'the index gives the order');
          });
        }
      }
    });

    test('the skip along the experiments index finds every experiment and variant of the app, and no other', async (t) => {
      const fresh = await freshStore(engine);
      t.after(() => fresh.close());
      const pairs = [
        ['ab', 'a'],
        ['ab', 'b'],
        ['ab', 'b'],
        ['gone', 'control'],
        ['z', 'a'],
      ];
      await insertSearches(fresh.store.db, [
        ...pairs.map(([id, variant], i) => ({
          at: D10 + i,
          query: 'q',
          hits: 1,
          docIds: [],
          experiment: { id: id!, variant: variant!, unit: `u${i}` },
        })),
        { at: D10, query: 'plain', hits: 1, docIds: [] },
      ]);
      await insertSearches(fresh.store.db, [
        {
          app: 'other',
          at: D10,
          query: 'q',
          hits: 1,
          experiment: { id: 'elsewhere', variant: 'a', unit: 'u' },
        },
      ]);
      assert.deepEqual(await experimentVariants(fresh.store.db, 'shop'), [
        { experiment: 'ab', variant: 'a' },
        { experiment: 'ab', variant: 'b' },
        { experiment: 'gone', variant: 'control' },
        { experiment: 'z', variant: 'a' },
      ]);
      assert.deepEqual(await experimentVariants(fresh.store.db, 'none'), []);
    });

    contract('admins, merchandisers and viewers read; search-only keys and strangers do not', async (t) => {
      const { app } = await build(t, engine);
      await createProfile(app, 'web', 'studio-a');
      await createUser(app, 'merch', 'merchandiser', { studios: ['studio-a'] });
      await createUser(app, 'other', 'merchandiser', { studios: ['studio-b'] });
      await createUser(app, 'view', 'viewer');
      for (const user of ['merch', 'other', 'view'])
        assert.equal((await analytics(app, '/searches', basic(user, PASSWORD))).status, 200, user);
      const key = await app.inject({
        method: 'POST',
        url: '/api/apps/shop/query-profiles/web/keys',
        headers: { authorization: adminAuth },
      });
      const bearer = `Bearer ${key.json().key}`;
      for (const path of ['/searches', '/rates', '/documents']) {
        const answer = await analytics(app, path, bearer);
        assert.equal(answer.status, 401, JSON.stringify(answer.body));
        assert.equal((await analytics(app, path, '')).status, 401);
      }
      const erase = await eraseShopper(app, 'a', bearer);
      assert.equal(erase.statusCode, 401);
      const merch = await app.inject({
        method: 'DELETE',
        url: '/api/apps/shop/signals?user_id=a',
        headers: { authorization: basic('merch', PASSWORD) },
      });
      assert.equal(merch.statusCode, 403);
      const document = (await app.inject({ url: '/api/openapi.json' })).json();
      assert.deepEqual(document.paths['/api/apps/{app}/analytics/{profile}/searches'].get['x-roles'], [
        'admin',
        'merchandiser',
        'viewer',
      ]);
      assert.deepEqual(document.paths['/api/apps/{app}/signals'].delete['x-roles'], ['admin']);
    });

    test('a rule the profile studio does not hold is named null', async (t) => {
      const { app, seeded } = await shop(t);
      const answer = await analytics(app, `/rules?${RANGE}`);
      assert.deepEqual(
        answer.body.rules.map((r: { id: string; name: string | null }) => [r.id, r.name]),
        reference.rules(seeded, D9, D10).map((r) => [r.id, null]),
      );
    });

    test('a node answering from memory sees at once what another node rolled up, an old day and a privacy delete included', async (t) => {
      let clock = NOW;
      const [one, two] = await buildNodes(t, engine, 2, { now: () => new Date(clock) });
      await createProfile(one!.app);
      const db = one!.store.db;
      const seeded = await seedShop(db);
      // A search of the 2nd: a day the answers keep in one block with the other old days.
      const D2 = Date.UTC(2026, 2, 2);
      const [old] = await insertSearches(db, [
        { id: 'old', at: D2 + 9 * HOUR, query: 'scarf', hits: 5, docIds: ['x1'], user: 'carol' },
      ]);
      seeded.searches.push({ id: old!, at: D2 + 9 * HOUR, query: 'scarf', hits: 5, docIds: ['x1'] });
      await one!.app.parts.analytics.rollChanged();
      // Older than the job's look-back: rolled as a roll catching up after downtime would.
      await one!.app.parts.analytics.rollHours([{ app: 'shop', profileId: 'web', hour: D2 + 9 * HOUR }]);
      const RANGE2 = 'startDate=2026-03-01&endDate=2026-03-10&limit=1000';
      const answers = async () => ({
        searches: (await analytics(two!.app, `/searches?${RANGE2}`)).body.searches,
        documents: (await analytics(two!.app, `/documents?${RANGE2}`)).body.documents,
      });
      const expected = () => ({
        searches: reference.topSearches(seeded, D2 - DAY, D10),
        documents: reference.documents(seeded, D2 - DAY, D10),
      });
      assert.deepEqual(await answers(), expected());

      // A click on the old search, received now, and a new search of today, rolled on node one.
      const click = {
        queryId: old!,
        type: 'click',
        docId: 'x1',
        at: D2 + 9 * HOUR + 5000,
        receivedAt: clock,
      };
      await insertSignals(db, [click]);
      seeded.signals.push(click);
      const [fresh] = await insertSearches(db, [{ at: D10 + 11 * HOUR, query: 'boots', hits: 0 }]);
      seeded.searches.push({ id: fresh!, at: D10 + 11 * HOUR, query: 'boots', hits: 0 });
      clock += HOUR;
      await one!.app.parts.analytics.rollChanged();
      assert.deepEqual(await answers(), expected());
      assert.equal(
        (await answers()).searches.find((s: { search: string }) => s.search === 'scarf').clickCount,
        1,
      );

      // Carol's privacy request, on node one: node two counts her search nowhere.
      const erased = await eraseShopper(one!.app, 'carol', adminAuth);
      assert.equal(erased.statusCode, 200, erased.body);
      seeded.searches = seeded.searches.filter((s) => s.id !== old);
      seeded.signals = seeded.signals.filter((g) => g.queryId !== old);
      assert.deepEqual(await answers(), expected());
      assert.ok(!(await answers()).searches.some((s: { search: string }) => s.search === 'scarf'));
    });

    test('a signal counts within 10 seconds of being acknowledged, by the scheduled roll', async (t) => {
      const { app, store } = await build(t, engine, { tuning: { analyticsRollup: true } });
      await createProfile(app);
      await app.ready();
      const at = Date.now();
      const [id] = await insertSearches(store.db, [{ at, query: 'fresh', hits: 1, docIds: ['f1'] }]);
      await insertSignals(store.db, [{ queryId: id!, type: 'click', docId: 'f1', at, receivedAt: at }]);
      const acknowledged = Date.now();
      for (;;) {
        const top = (await analytics(app, '/searches')).body.searches;
        if (
          top.some((s: { search: string; clickCount: number }) => s.search === 'fresh' && s.clickCount === 1)
        )
          break;
        assert.ok(Date.now() - acknowledged < 10_000, 'counted within 10 s');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    });
  });
}
