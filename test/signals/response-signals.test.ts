// The query path's side of the signals, against the run's real SolrCloud: a fresh query id on
// every answer (header and `fusion.queryId`), a response signal per answered query saying what
// it showed (Solr's numFound, the page's ids, the rules that fired), the shopper only as keyed
// hashes and never sent to Solr, users' queries answered but not counted, and typeahead taught
// only by searches that found something.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { call } from '../helpers/api.js';
import { ADMIN_PASSWORD, adminAuth, build, engines, skipReason } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';
import { solrSkipReason, type TestSolr, testSolr } from '../helpers/solr.js';
import { shopOnTestSolr } from '../query/solr-shop.js';
import { publishedRule } from '../rules/api.js';
import { signIn } from '../users/helpers.js';
import { hasher } from './helpers.js';

// echoParams=all makes Solr answer every parameter it received: what the shopper's ids must not be among.
const DEFAULTS = { rows: '5', fl: 'id,brand', sort: 'score desc,id asc', echoParams: 'all' };
const QUERY_ID = /^[A-Za-z0-9_-]{22}$/;

for (const engine of engines) {
  describe(`Response signals against the real SolrCloud on ${engine}`, {
    skip: (await skipReason(engine)) ?? solrSkipReason(),
  }, () => {
    let solr: TestSolr;
    before(async () => {
      solr = await testSolr();
    });

    async function setUp(t: Parameters<typeof build>[0], profile: Record<string, unknown> = {}) {
      const { app, store } = await build(t, engine, { tuning: { searchLogFlushMs: 20 } });
      const { access, key } = await shopOnTestSolr(app, solr, {
        defaults: DEFAULTS,
        allowedParams: ['rows', 'start'],
        ...profile,
      });
      const query = async (
        search: string,
        authorization = `Bearer ${key}`,
        headers: Record<string, string> = {},
      ) => {
        const response = await app.inject({
          method: 'GET',
          url: `/api/apps/shop/query/web?${search}`,
          headers: { authorization, ...headers },
        });
        assert.equal(response.statusCode, 200, response.body);
        return {
          body: response.json(),
          queryId: response.headers['x-fusion-query-id'] as string,
          headers: response.headers,
        };
      };
      /** The response signal of a query id, once the batch holding it is written. */
      const signalOf = (id: string) =>
        eventually(async () => {
          const row = await store.db
            .selectFrom('search_signal')
            .selectAll()
            .where('id', '=', id)
            .executeTakeFirst();
          assert.ok(row, `no response signal ${id} yet`);
          return row;
        });
      return { app, store, access, key, query, signalOf };
    }

    test('every answer carries a fresh query id, and its response signal says what it showed', async (t) => {
      const { app, access, query, signalOf } = await setUp(t);
      const kettles = (await query('q=kettle')).body.response.docs.map(
        (d: { id: string }) => d.id,
      ) as string[];
      const rule = await publishedRule(app, access, {
        type: 'pinned',
        name: 'Pin the third kettle',
        pinnedValues: [{ value: kettles[2], position: 1 }],
        conditions: { queries: ['kettle'] },
      });
      const first = await query('q=kettle&user_id=u-42&session=s-9&segment=vip&segment=eu');
      const second = await query('q=kettle');
      for (const answer of [first, second]) {
        assert.match(answer.queryId, QUERY_ID);
        assert.equal(answer.body.fusion.queryId, answer.queryId);
        assert.match(String(answer.headers['access-control-expose-headers']), /x-fusion-query-id/);
      }
      assert.notEqual(first.queryId, second.queryId);
      // The shopper's id and session reach neither Solr nor the dropped parameters.
      const sent = first.body.responseHeader.params as Record<string, unknown>;
      assert.equal(sent.q !== undefined, true, 'Solr echoes the parameters it received');
      assert.equal(sent.user_id, undefined);
      assert.equal(sent.session, undefined);
      assert.deepEqual(first.body.fusion.droppedParams, []);

      const signal = await signalOf(first.queryId);
      const shown = first.body.response.docs.map((d: { id: string }) => d.id);
      assert.equal(shown[0], kettles[2]);
      assert.deepEqual(
        {
          ...signal,
          at: typeof signal.at,
          doc_ids: JSON.parse(signal.doc_ids),
          rule_ids: JSON.parse(signal.rule_ids),
        },
        {
          id: first.queryId,
          app: 'shop',
          profile_id: 'web',
          collection: solr.collection,
          at: 'number',
          query: 'kettle',
          query_key: 'kettle',
          rewritten: 'kettle',
          hits: first.body.response.numFound,
          doc_ids: shown,
          rule_ids: [rule.id],
          segment: 'vip,eu',
          user_hash: hasher.hash('u-42'),
          session_hash: hasher.hash('s-9'),
          counted: 1,
          // The profile runs no experiment.
          experiment: null,
          variant: null,
          unit_hash: null,
        },
      );
      assert.ok(!JSON.stringify(signal).includes('u-42') && !JSON.stringify(signal).includes('s-9'));
      const plain = await signalOf(second.queryId);
      assert.deepEqual([plain.user_hash, plain.session_hash, plain.segment], [null, null, null]);
    });

    test("a user's query (Basic credentials or the workbench's session) is answered but not counted", async (t) => {
      const { app, query, signalOf } = await setUp(t);
      const basic = await query('q=toaster', adminAuth);
      const session = await signIn(app, 'admin', ADMIN_PASSWORD);
      const workbench = await query('q=toaster', '', { cookie: session.cookie });
      const shopper = await query('q=toaster');
      assert.equal((await signalOf(basic.queryId)).counted, 0);
      assert.equal((await signalOf(workbench.queryId)).counted, 0);
      assert.equal((await signalOf(shopper.queryId)).counted, 1);
    });

    test("the profile names the shopper's parameters; they are never sent, even when allowed", async (t) => {
      const { query, signalOf } = await setUp(t, {
        allowedParams: ['rows', 'uid', 'user_id'],
        signals: { userParam: 'uid', sessionParam: 'visit' },
      });
      const answer = await query('q=mug&uid=shopper-7&visit=v-1&user_id=not-an-id');
      const sent = answer.body.responseHeader.params as Record<string, unknown>;
      assert.equal(sent.uid, undefined);
      assert.equal(sent.visit, undefined);
      // Not the profile's shopper parameter any more: an allowed one like any other.
      assert.equal(sent.user_id, 'not-an-id');
      const signal = await signalOf(answer.queryId);
      assert.equal(signal.user_hash, hasher.hash('shopper-7'));
      assert.equal(signal.session_hash, hasher.hash('v-1'));
    });

    test('typeahead learns only from the searches that found something (minHits)', async (t) => {
      const { app } = await build(t, engine, { tuning: { searchLogFlushMs: 20 } });
      const created = await call(app, 'POST', '/api/typeahead/instances', { name: 'Shop', minCount: 1 });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.minHits, 1);
      const instance = created.body.id as string;
      const { key } = await shopOnTestSolr(app, solr, { defaults: DEFAULTS, typeahead: instance });
      for (const q of ['kettle', 'kettle', 'zzqqxx', 'zzqqxx', 'zzqqxx']) {
        const answer = await call(app, 'GET', `/api/apps/shop/query/web?q=${q}`, undefined, `Bearer ${key}`);
        assert.equal(answer.status, 200);
      }
      await eventually(
        async () => {
          const refreshed = await call(app, 'POST', `/api/typeahead/instances/${instance}/refresh`);
          assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
          const terms = await call(app, 'GET', `/api/typeahead/instances/${instance}/terms`);
          assert.deepEqual(terms.body.topSearched, [{ term: 'kettle', count: 2 }]);
        },
        { within: 5000 },
      );
    });
  });
}
