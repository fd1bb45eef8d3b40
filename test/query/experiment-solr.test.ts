// An experiment on a profile, against the run's real SolrCloud: each shopper gets one variant
// every time, the variant's params reach Solr whatever the profile allows (Solr echoes what it
// received), the answer names the experiment and variant, the response signal records them,
// a query without the shopper's id gets the control uncounted, and after a promotion the
// variant's params are the profile's own and no answer carries a variant.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { call } from '../helpers/api.js';
import { build, engines, skipReason } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';
import { solrSkipReason, type TestSolr, testSolr } from '../helpers/solr.js';
import { createRewrite, publish as publishRewrite } from '../rewrites/api.js';
import { publishedRule, studioWithToken } from '../rules/api.js';
import { hasher } from '../signals/helpers.js';
import { shopOnTestSolr } from './solr-shop.js';

const EXPERIMENT = {
  id: 'facets',
  uniqueIdParameter: 'user_id',
  enabled: true,
  variants: [
    { id: 'control', weight: 1 },
    {
      id: 'brands',
      weight: 1,
      params: [
        { key: 'fl', value: 'id,brand', policy: 'replace' },
        { key: 'facet', value: 'true', policy: 'replace' },
        { key: 'facet.field', value: 'brand', policy: 'append' },
        { key: 'rows', value: '3', policy: 'default' },
      ],
    },
  ],
};

for (const engine of engines) {
  describe(`An experiment against the real SolrCloud on ${engine}`, {
    skip: (await skipReason(engine)) ?? solrSkipReason(),
  }, () => {
    let solr: TestSolr;
    before(async () => {
      solr = await testSolr();
    });

    test("a variant's params reach Solr for its shoppers only, sticky, recorded, and gone after promotion", async (t) => {
      const { app, store } = await build(t, engine, { tuning: { searchLogFlushMs: 20 } });
      const { key } = await shopOnTestSolr(app, solr, {
        defaults: { rows: '5', fl: 'id', echoParams: 'all' },
        allowedParams: ['rows'],
      });
      assert.equal((await call(app, 'POST', '/api/apps/shop/experiments', EXPERIMENT)).status, 200);
      const attached = await call(app, 'PUT', '/api/apps/shop/query-profiles/web', {
        searchCluster: 'solr',
        collection: solr.collection,
        studio: 'studio1',
        defaults: { rows: '5', fl: 'id', echoParams: 'all' },
        allowedParams: ['rows'],
        experiment: 'facets',
      });
      assert.equal(attached.status, 200, JSON.stringify(attached.body));
      const query = async (search: string) => {
        const response = await app.inject({
          method: 'GET',
          url: `/api/apps/shop/query/web?${search}`,
          headers: { authorization: `Bearer ${key}` },
        });
        assert.equal(response.statusCode, 200, response.body);
        return response.json();
      };

      const variantOf = new Map<string, string>();
      for (let i = 0; variantOf.size < 40; i++) {
        const answer = await query(`q=kettle&user_id=shopper-${i}&facet.field=name`);
        assert.equal(answer.fusion.experiment, 'facets');
        variantOf.set(`shopper-${i}`, answer.fusion.variant);
        const sent = answer.responseHeader.params;
        assert.equal(sent.user_id, undefined, "the shopper's id never reaches Solr");
        if (answer.fusion.variant === 'brands') {
          assert.equal(sent.fl, 'id,brand');
          assert.equal(sent.facet, 'true');
          // The shopper's facet.field is dropped (not allowed); the variant's reaches Solr.
          assert.equal(sent['facet.field'], 'brand');
          assert.equal(sent.rows, '5', 'a default param leaves the profile’s value');
          assert.ok(answer.facet_counts.facet_fields.brand);
        } else {
          assert.equal(answer.fusion.variant, 'control');
          assert.equal(sent.fl, 'id');
          assert.equal(sent.facet, undefined);
          assert.equal(answer.facet_counts, undefined);
        }
        assert.deepEqual(answer.fusion.droppedParams, ['facet.field']);
      }
      const brands = [...variantOf].filter(([, variant]) => variant === 'brands').map(([user]) => user);
      assert.ok(brands.length > 5 && brands.length < 35, `both variants get shoppers: ${brands.length}`);
      // Sticky: the same shopper gets the same variant again.
      for (const [user, variant] of [...variantOf].slice(0, 10)) {
        assert.equal((await query(`q=kettle&user_id=${user}`)).fusion.variant, variant);
      }

      const one = brands[0]!;
      const assigned = await app.inject({
        method: 'GET',
        url: `/api/apps/shop/query/web?q=kettle&user_id=${one}`,
        headers: { authorization: `Bearer ${key}` },
      });
      const anonymous = await query('q=kettle');
      assert.equal(anonymous.fusion.variant, 'control', 'no shopper id: the control');
      const rowOf = (id: string) =>
        eventually(async () => {
          const row = await store.db
            .selectFrom('search_signal')
            .selectAll()
            .where('id', '=', id)
            .executeTakeFirst();
          assert.ok(row, `no response signal ${id} yet`);
          return row;
        });
      const recorded = await rowOf(String(assigned.headers['x-fusion-query-id']));
      assert.deepEqual(
        { experiment: recorded.experiment, variant: recorded.variant, unit_hash: recorded.unit_hash },
        { experiment: 'facets', variant: 'brands', unit_hash: hasher.hash(one) },
      );
      const uncounted = await rowOf(anonymous.fusion.queryId);
      assert.deepEqual(
        { experiment: uncounted.experiment, variant: uncounted.variant, unit_hash: uncounted.unit_hash },
        { experiment: null, variant: null, unit_hash: null },
      );

      // Stopped, no one is assigned; started again, the same shopper gets the same variant.
      const { id: _id, ...settings } = EXPERIMENT;
      const stop = await call(app, 'PUT', '/api/apps/shop/experiments/facets', {
        ...settings,
        enabled: false,
      });
      assert.equal(stop.status, 200, JSON.stringify(stop.body));
      const stopped = await query(`q=kettle&user_id=${one}`);
      assert.equal(stopped.fusion.variant, undefined);
      assert.equal(stopped.responseHeader.params.fl, 'id');
      assert.equal((await call(app, 'PUT', '/api/apps/shop/experiments/facets', settings)).status, 200);
      assert.equal((await query(`q=kettle&user_id=${one}`)).fusion.variant, 'brands');

      const promoted = await call(app, 'POST', '/api/apps/shop/experiments/facets/promote', {
        variant: 'brands',
      });
      assert.equal(promoted.status, 200, JSON.stringify(promoted.body));
      for (const user of [one, [...variantOf].find(([, v]) => v === 'control')![0]]) {
        const answer = await query(`q=kettle&user_id=${user}`);
        assert.equal(answer.fusion.variant, undefined);
        assert.equal(answer.fusion.experiment, undefined);
        assert.equal(answer.responseHeader.params.fl, 'id,brand', "the variant's params are the profile's");
        assert.equal(answer.responseHeader.params['facet.field'], 'brand');
      }
    });

    test("a variant's studio and rewrites switch apply to its shoppers, until the experiment's end", async (t) => {
      let clock = Date.now();
      const { app } = await build(t, engine, {
        now: () => new Date(clock),
        tuning: { searchLogFlushMs: 20 },
      });
      const { access, key } = await shopOnTestSolr(app, solr, { defaults: { rows: '3', fl: 'id' } });
      const other = await studioWithToken(app, 'studio2');
      const rewrite = await createRewrite(app, access, {
        type: 'misspelling',
        misspelling: 'kettel',
        correction: 'kettle',
      });
      await publishRewrite(app, access, rewrite.id);
      const rule = await publishedRule(app, other, {
        type: 'blockList',
        name: 'Block brand x',
        fieldName: 'brand',
        fieldValues: ['x'],
      });
      // A publish answers before evaluation has read the live content again (docs/rules.md).
      await eventually(async () => {
        const own = await call(app, 'GET', '/api/studios/studio1/evaluate?q=kettel');
        const theirs = await call(app, 'GET', '/api/studios/studio2/evaluate?q=kettel');
        assert.equal(own.body.rewrites.length, 1);
        assert.equal(theirs.body.rules.length, 1);
      });
      const created = await call(app, 'POST', '/api/apps/shop/experiments', {
        id: 'studios',
        enabled: true,
        endTimestamp: new Date(clock + 3_600_000).toISOString(),
        variants: [
          { id: 'control', weight: 1 },
          { id: 'plain', weight: 1, rewrites: false },
          { id: 'other', weight: 1, studio: 'studio2' },
        ],
      });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const attached = await call(app, 'PUT', '/api/apps/shop/query-profiles/web', {
        searchCluster: 'solr',
        collection: solr.collection,
        studio: 'studio1',
        defaults: { rows: '3', fl: 'id' },
        experiment: 'studios',
      });
      assert.equal(attached.status, 200, JSON.stringify(attached.body));
      const query = async (search: string) => {
        const response = await app.inject({
          method: 'GET',
          url: `/api/apps/shop/query/web?${search}`,
          headers: { authorization: `Bearer ${key}` },
        });
        assert.equal(response.statusCode, 200, response.body);
        return response.json().fusion;
      };
      const seen = new Set<string>();
      for (let i = 0; seen.size < 3 && i < 200; i++) {
        const fusion = await query(`q=kettel&user_id=shopper-${i}`);
        seen.add(fusion.variant);
        const rules = fusion.rules.map((r: { id: string }) => r.id);
        if (fusion.variant === 'control') {
          assert.equal(fusion.rewrittenQuery, 'kettle');
          assert.deepEqual(rules, []);
        } else if (fusion.variant === 'plain') {
          assert.equal(fusion.rewrittenQuery, 'kettel', 'no rewrites for this variant');
          assert.deepEqual(fusion.rewrites, []);
        } else {
          assert.equal(fusion.variant, 'other');
          assert.equal(fusion.rewrittenQuery, 'kettel', "the other studio's rewrites: none");
          assert.deepEqual(rules, [rule.id]);
        }
      }
      assert.equal(seen.size, 3);
      // Past its end, the experiment assigns no one: the profile's own studio for everyone.
      clock += 2 * 3_600_000;
      for (let i = 0; i < 10; i++) {
        const fusion = await query(`q=kettel&user_id=shopper-${i}`);
        assert.equal(fusion.variant, undefined);
        assert.equal(fusion.rewrittenQuery, 'kettle');
      }
      assert.equal((await call(app, 'GET', '/api/apps/shop/experiments/studios')).body.running, false);
    });

    /**
     * The shop's profile on the test Solr running an A/B experiment that assigns shoppers by a
     * `visitor` parameter of its own; answers the profile's search-only key.
     */
    async function visitorsExperiment(
      app: FastifyInstance,
      defaults: Record<string, string>,
    ): Promise<string> {
      const { key } = await shopOnTestSolr(app, solr, { defaults });
      const created = await call(app, 'POST', '/api/apps/shop/experiments', {
        id: 'visitors',
        uniqueIdParameter: 'visitor',
        enabled: true,
        variants: [
          { id: 'a', weight: 1 },
          { id: 'b', weight: 1 },
        ],
      });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const attached = await call(app, 'PUT', '/api/apps/shop/query-profiles/web', {
        searchCluster: 'solr',
        collection: solr.collection,
        studio: 'studio1',
        defaults,
        experiment: 'visitors',
      });
      assert.equal(attached.status, 200, JSON.stringify(attached.body));
      return key;
    }

    test('a uniqueIdParameter of its own is read, taken out of the parameters and hashed in the signal', async (t) => {
      const { app, store } = await build(t, engine, { tuning: { searchLogFlushMs: 20 } });
      const key = await visitorsExperiment(app, { rows: '3', fl: 'id', echoParams: 'all' });
      const response = await app.inject({
        method: 'GET',
        url: '/api/apps/shop/query/web?q=kettle&visitor=v-1&user_id=u-1',
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(response.statusCode, 200, response.body);
      const answer = response.json();
      assert.ok(['a', 'b'].includes(answer.fusion.variant));
      assert.equal(answer.responseHeader.params.visitor, undefined, 'never sent to Solr');
      assert.deepEqual(answer.fusion.droppedParams, [], 'nor named among the dropped');
      const row = await eventually(async () => {
        const found = await store.db
          .selectFrom('search_signal')
          .selectAll()
          .where('id', '=', answer.fusion.queryId)
          .executeTakeFirst();
        assert.ok(found, 'no response signal yet');
        return found;
      });
      assert.deepEqual(
        [row.experiment, row.variant, row.unit_hash, row.user_hash],
        ['visitors', answer.fusion.variant, hasher.hash('v-1'), hasher.hash('u-1')],
      );
    });

    test("a privacy delete by the value of an experiment's own parameter erases the searches it assigned", async (t) => {
      const { app, store } = await build(t, engine, { tuning: { searchLogFlushMs: 20 } });
      const key = await visitorsExperiment(app, { rows: '3', fl: 'id' });
      // No user id: the shop knows these shoppers only by the visitor parameter.
      const queryIds: string[] = [];
      for (const search of ['q=kettle&visitor=v1', 'q=toaster&visitor=v1', 'q=kettle&visitor=v2']) {
        const response = await app.inject({
          method: 'GET',
          url: `/api/apps/shop/query/web?${search}`,
          headers: { authorization: `Bearer ${key}` },
        });
        assert.equal(response.statusCode, 200, response.body);
        queryIds.push(response.json().fusion.queryId);
      }
      const stored = () =>
        store.db
          .selectFrom('search_signal')
          .select(['id', 'user_hash'])
          .where('id', 'in', queryIds)
          .execute();
      const rows = await eventually(async () => {
        const found = await stored();
        assert.equal(found.length, 3, 'not every response signal yet');
        return found;
      });
      assert.ok(rows.every((row) => row.user_hash === null));
      const erased = await call(app, 'DELETE', '/api/apps/shop/signals?user_id=v1');
      assert.equal(erased.status, 200, JSON.stringify(erased.body));
      assert.deepEqual(erased.body, { searches: 2, signals: 0 });
      assert.deepEqual(
        (await stored()).map((row) => row.id),
        [queryIds[2]],
        "the other visitor's search stays",
      );
    });
  });
}
