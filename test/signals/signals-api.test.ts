// The Signals API: who may post, what is stored (hashes, never the shopper's values or an IP
// address), ids stored once, async and commit, and CORS for the origins profiles allow.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { adminAuth, build, contractTest, engines, skipReason } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';
import { parseExposition, sampleValue } from '../operations/exposition.js';
import { basic, createUser, PASSWORD, signIn } from '../users/helpers.js';
import { hasher, postSignals, profileWithKey, storedSignals } from './helpers.js';

const click = (fields: Record<string, unknown> = {}, params: Record<string, unknown> = {}) => ({
  type: 'click',
  params: { query: 'Kettle', docId: 'P1', ...params },
  ...fields,
});

for (const engine of engines) {
  describe(`Signals API on ${engine}`, { skip: await skipReason(engine) }, () => {
    const contract = contractTest(engine);

    test('stores the signals a user posts, with the shopper as keyed hashes and no IP address', async (t) => {
      const { app, store } = await build(t, engine);
      const answer = await postSignals(
        app,
        [
          click(
            { id: 'c1', timestamp: 1_764_000_000_000 },
            {
              user_id: 'u-42',
              session: 's-9',
              position: 3,
              ip_address: '203.0.113.9',
              filter: ['brand/Acme'],
            },
          ),
          {
            id: 'p1',
            type: 'purchase',
            timestamp: '2026-11-28T09:15:31.018Z',
            params: { docId: 'P2', price: 19.5, qty: 2, user_id: 'u-42' },
          },
          { type: 'wishlist', params: { doc_id: 'P3', res_pos: 7, session: 's-9' } },
        ],
        { authorization: adminAuth },
      );
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.deepEqual(answer.body, { accepted: 3 });
      const rows = await storedSignals(store.db);
      assert.equal(rows.length, 3);
      const byType = Object.fromEntries(rows.map((row) => [row.type, row]));
      assert.deepEqual(
        { ...byType.click, received_at: 0 },
        {
          id: 'shop/products/c1',
          app: 'shop',
          collection: 'products',
          type: 'click',
          at: 1_764_000_000_000,
          received_at: 0,
          doc_id: 'P1',
          query: 'Kettle',
          query_key: 'kettle',
          query_id: null,
          attribution: null,
          position: 3,
          price: null,
          quantity: null,
          user_hash: hasher.hash('u-42'),
          session_hash: hasher.hash('s-9'),
          params: JSON.stringify({ filter: ['brand/Acme'] }),
        },
      );
      assert.equal(byType.purchase!.at, Date.parse('2026-11-28T09:15:31.018Z'));
      assert.equal(byType.purchase!.price, 19.5);
      assert.equal(byType.purchase!.quantity, 2);
      assert.equal(byType.wishlist!.doc_id, 'P3');
      assert.equal(byType.wishlist!.position, 7);
      assert.equal(byType.wishlist!.user_hash, null);
      // A signal without a timestamp is of the moment it was received.
      assert.equal(byType.wishlist!.at, byType.wishlist!.received_at);
      const text = JSON.stringify(rows);
      for (const value of ['u-42', 's-9', '203.0.113.9']) assert.ok(!text.includes(value), value);
    });

    test('a signal whose id is stored already is not stored again; another collection has its own ids', async (t) => {
      const { app, store } = await build(t, engine);
      const first = await postSignals(app, [click({ id: 'same' })], { authorization: adminAuth });
      assert.equal(first.status, 200);
      const again = await postSignals(app, [click({ id: 'same' }, { docId: 'P9' }), click({ id: 'same' })], {
        authorization: adminAuth,
      });
      assert.deepEqual(again.body, { accepted: 2 });
      const elsewhere = await postSignals(app, [click({ id: 'same' })], {
        authorization: adminAuth,
        collection: 'other',
      });
      assert.equal(elsewhere.status, 200);
      const rows = await storedSignals(store.db);
      assert.deepEqual(
        rows.map((row) => [row.id, row.doc_id]),
        [
          ['shop/other/same', 'P1'],
          ['shop/products/same', 'P1'],
        ],
      );
    });

    test('async=true answers at once and the signals are written within seconds; commit is accepted', async (t) => {
      const { app, store } = await build(t, engine);
      const answer = await postSignals(app, [click(), click()], {
        authorization: adminAuth,
        query: '?async=true&commit=true',
      });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.deepEqual(answer.body, { accepted: 2 });
      await eventually(async () => assert.equal((await storedSignals(store.db)).length, 2), { within: 5000 });
      const committed = await postSignals(app, [click()], {
        authorization: adminAuth,
        query: '?commit=false',
      });
      assert.equal(committed.status, 200);
      const bad = await postSignals(app, [click()], { authorization: adminAuth, query: '?async=maybe' });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.errors[0].field, 'async');
    });

    contract(
      "a search-only key posts to its profile's collection only; users but viewers may post",
      async (t) => {
        const { app } = await build(t, engine);
        const key = await profileWithKey(app);
        const otherCollection = await profileWithKey(app, { id: 'books', collection: 'books' });
        const otherApp = await profileWithKey(app, { app: 'outlet' });
        const bearer = (k: string) => ({ authorization: `Bearer ${k}` });
        assert.equal((await postSignals(app, [click()], bearer(key))).status, 200);
        assert.equal(
          (await postSignals(app, [click()], { ...bearer(otherCollection), collection: 'books' })).status,
          200,
        );
        const wrongCollection = await postSignals(app, [click()], bearer(otherCollection));
        assert.equal(wrongCollection.status, 403);
        assert.match(wrongCollection.body.message, /collection books of app shop/);
        assert.equal((await postSignals(app, [click()], bearer(otherApp))).status, 403);
        assert.equal((await postSignals(app, [click()], bearer(`${key}x`))).status, 401);
        assert.equal((await postSignals(app, [click()], bearer('sdq_nope'))).status, 401);
        assert.equal((await postSignals(app, [click()])).status, 401);
        // A revoked key opens nothing.
        const keys = await app.inject({
          method: 'GET',
          url: '/api/apps/shop/query-profiles/web/keys',
          headers: { authorization: adminAuth },
        });
        const keyId = keys.json()[0].id as string;
        await app.inject({
          method: 'DELETE',
          url: `/api/apps/shop/query-profiles/web/keys/${keyId}`,
          headers: { authorization: adminAuth },
        });
        assert.equal((await postSignals(app, [click()], bearer(key))).status, 401);
        // Users: a merchandiser may, a viewer only reads; a console session needs its CSRF token.
        await createUser(app, 'mia', 'merchandiser');
        await createUser(app, 'vic', 'viewer');
        assert.equal(
          (await postSignals(app, [click()], { authorization: basic('mia', PASSWORD) })).status,
          200,
        );
        assert.equal(
          (await postSignals(app, [click()], { authorization: basic('vic', PASSWORD) })).status,
          403,
        );
        assert.equal(
          (await postSignals(app, [click()], { authorization: basic('mia', 'wrong-password') })).status,
          401,
        );
        const session = await signIn(app, 'mia');
        const withSession = { headers: { cookie: session.cookie, 'x-csrf-token': session.csrfToken } };
        assert.equal((await postSignals(app, [click()], withSession)).status, 200);
        assert.equal(
          (await postSignals(app, [click()], { headers: { cookie: session.cookie } })).status,
          403,
        );
      },
    );

    contract(
      'counts the signals accepted by type, those refused by reason, and their attribution',
      async (t) => {
        const { app } = await build(t, engine);
        const metric = async (name: string, labels: Record<string, string>) => {
          const scraped = await app.inject({ url: '/metrics', headers: { authorization: adminAuth } });
          return sampleValue(parseExposition(scraped.body), name, labels);
        };
        await postSignals(
          app,
          [click(), click({}, { fusion_query_id: 'q1' }), { type: 'wishlist', params: {} }],
          {
            authorization: adminAuth,
          },
        );
        assert.equal(await metric('searchdeck_signals_accepted_total', { type: 'click' }), 2);
        assert.equal(await metric('searchdeck_signals_accepted_total', { type: 'custom' }), 1);
        assert.equal(await metric('searchdeck_signals_attribution_total', { attribution: 'sent' }), 1);
        assert.equal(await metric('searchdeck_signals_attribution_total', { attribution: 'none' }), 1);
        await postSignals(app, [click(), { type: 7, params: {} }], { authorization: adminAuth });
        await postSignals(app, [click()]);
        assert.equal(await metric('searchdeck_signals_rejected_total', { reason: 'invalid' }), 2);
        assert.equal(await metric('searchdeck_signals_rejected_total', { reason: 'unauthorized' }), 1);
      },
    );

    contract(
      'a CORS preflight is answered for the origins of the profiles over the collection only',
      async (t) => {
        const { app } = await build(t, engine);
        const key = await profileWithKey(app, { profile: { allowedOrigins: ['https://shop.example'] } });
        await profileWithKey(app, { id: 'any', collection: 'open', profile: { allowedOrigins: ['*'] } });
        const preflight = (origin: string, collection = 'products') =>
          app.inject({
            method: 'OPTIONS',
            url: `/api/apps/shop/signals/${collection}`,
            headers: {
              origin,
              'access-control-request-method': 'POST',
              'access-control-request-headers': 'authorization,content-type',
            },
          });
        const allowed = await preflight('https://shop.example');
        assert.equal(allowed.statusCode, 204);
        assert.equal(allowed.headers['access-control-allow-origin'], 'https://shop.example');
        assert.match(String(allowed.headers['access-control-allow-methods']), /POST/);
        assert.match(String(allowed.headers['access-control-allow-headers']), /Authorization/);
        const other = await preflight('https://evil.example');
        assert.equal(other.statusCode, 204);
        assert.equal(other.headers['access-control-allow-origin'], undefined);
        assert.equal(other.headers['access-control-allow-methods'], undefined);
        // Another app's collection of that name is not this one's.
        assert.equal(
          (await preflight('https://shop.example', 'books')).headers['access-control-allow-origin'],
          undefined,
        );
        assert.equal(
          (await preflight('https://anyone.example', 'open')).headers['access-control-allow-origin'],
          'https://anyone.example',
        );
        // The POST itself, and its refusal, are readable by an allowed page only.
        const posted = await postSignals(app, [click()], {
          authorization: `Bearer ${key}`,
          headers: { origin: 'https://shop.example' },
        });
        assert.equal(posted.status, 200);
        assert.equal(posted.headers['access-control-allow-origin'], 'https://shop.example');
        const refused = await postSignals(app, [click()], { headers: { origin: 'https://shop.example' } });
        assert.equal(refused.status, 401);
        assert.equal(refused.headers['access-control-allow-origin'], 'https://shop.example');
        const foreign = await postSignals(app, [click()], {
          authorization: `Bearer ${key}`,
          headers: { origin: 'https://evil.example' },
        });
        assert.equal(foreign.headers['access-control-allow-origin'], undefined);
      },
    );
  });
}
