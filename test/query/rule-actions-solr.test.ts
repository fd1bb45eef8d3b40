// The rule kinds of category pages and campaigns against the run's real SolrCloud, through the
// query endpoint: a filter list narrows the result list as Solr's own fq does, a boost by
// attribute (a field value or a query, up or down) moves documents, set params change what
// Solr is asked, response values and the facet order come back in `fusion`, and a rule of the
// empty query with a shopper's category filter drives a category page.
import assert from 'node:assert/strict';
import { before, describe, type TestContext, test } from 'node:test';
import type { Engine } from '../../src/storage/database.js';
import { type Answer, call } from '../helpers/api.js';
import { build, engines, skipReason } from '../helpers/app.js';
import { selectDirect, solrSkipReason, type TestSolr, testSolr } from '../helpers/solr.js';
import { publishedRule } from '../rules/api.js';
import { shopOnTestSolr } from './solr-shop.js';

type Params = Record<string, string | string[]>;
interface Doc {
  id: string;
  brand: string;
  category: string;
  price: number;
  in_stock: boolean;
}

// As in real-solr.test.ts: the id breaks ties of score, so the order is Solr's own on any replica.
const DEFAULTS = { rows: '10', fl: 'id,brand,category,price,in_stock', sort: 'score desc,id asc' };

const docsOf = (answer: Answer | { body: Record<string, unknown> }): Doc[] =>
  (answer.body as { response: { docs: Doc[] } }).response.docs;
const idsOf = (answer: Answer | { body: Record<string, unknown> }): string[] =>
  docsOf(answer).map((d) => d.id);
const foundBy = (answer: Answer | { body: Record<string, unknown> }): number =>
  (answer.body as { response: { numFound: number } }).response.numFound;

function search(params: Params): string {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(params))
    for (const one of [value].flat()) form.append(name, one);
  return form.toString();
}

for (const engine of engines) {
  describe(`Rule actions against the real SolrCloud on ${engine}`, {
    skip: (await skipReason(engine)) ?? solrSkipReason(),
  }, () => {
    let solr: TestSolr;
    before(async () => {
      solr = await testSolr();
    });

    async function direct(params: Params) {
      const answer = await selectDirect(solr, { ...DEFAULTS, ...params });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return answer;
    }

    async function setUp(t: TestContext, on: Engine) {
      const { app } = await build(t, on);
      const { access, key } = await shopOnTestSolr(app, solr, {
        defaults: DEFAULTS,
        allowedParams: ['rows', 'start', 'fq', 'sort'],
      });
      const query = async (params: Params) => {
        const answer = await call(
          app,
          'GET',
          `/api/apps/shop/query/web?${search(params)}`,
          undefined,
          `Bearer ${key}`,
        );
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        return answer;
      };
      return { app, access, query };
    }

    const onQuery = (q: string) => ({ conditions: { queries: [q] } });

    test('each new kind changes the answer as documented', async (t) => {
      const { app, access, query } = await setUp(t, engine);
      const base = {
        laptop: await query({ q: 'laptop' }),
        mug: await query({ q: 'mug' }),
        kettle: await query({ q: 'kettle' }),
        monitor: await query({ q: 'monitor' }),
        toaster: await query({ q: 'toaster' }),
      };
      // Two brands of laptops other than the top one's: the filter keeps only theirs.
      const laptopBrands = [...new Set(docsOf(base.laptop).map((d) => d.brand))];
      assert.ok(laptopBrands.length >= 3, `laptop finds several brands: ${laptopBrands}`);
      const kept = laptopBrands.slice(1, 3);
      const mugs = docsOf(base.mug);
      const raisedBrand = mugs.find((d) => d.brand !== mugs[0]!.brand)!.brand;
      const kettles = docsOf(base.kettle);
      const raisedKettleBrand = kettles.find((d) => d.brand !== kettles[0]!.brand)!.brand;
      const topMonitorBrand = docsOf(base.monitor)[0]!.brand;

      await publishedRule(app, access, {
        type: 'filterList',
        name: 'Two brands of laptops',
        fieldName: 'brand',
        fieldValues: kept,
        ...onQuery('laptop'),
      });
      await publishedRule(app, access, {
        type: 'boostAttributes',
        name: 'Raise a brand of mugs',
        boosts: [{ fieldName: 'brand', value: raisedBrand, weight: 1000 }],
        ...onQuery('mug'),
      });
      await publishedRule(app, access, {
        type: 'boostAttributes',
        name: 'Raise a brand of kettles by a query',
        boosts: [{ query: `brand:(${JSON.stringify(raisedKettleBrand)})`, weight: 1000 }],
        ...onQuery('kettle'),
      });
      await publishedRule(app, access, {
        type: 'boostAttributes',
        name: 'Lower the top brand of monitors',
        boosts: [{ fieldName: 'brand', value: topMonitorBrand, weight: -1000 }],
        ...onQuery('monitor'),
      });
      await publishedRule(app, access, {
        type: 'setParams',
        name: 'Three toasters in stock',
        params: [
          { key: 'rows', value: '3' },
          { key: 'fq', value: 'in_stock:true', policy: 'append' },
          { key: 'sort', value: 'price asc', policy: 'default' },
        ],
        ...onQuery('toaster'),
      });
      await publishedRule(app, access, {
        type: 'responseValue',
        name: 'Toaster hero',
        responseValues: [
          { key: 'hero', value: { title: 'Toast week', image: '/t.png' } },
          { key: 'layout', value: 'grid' },
        ],
        ...onQuery('toaster'),
      });
      await publishedRule(app, access, {
        type: 'setFacetList',
        name: 'Toaster facets',
        facetFields: ['brand', 'category'],
        ...onQuery('toaster'),
      });

      // Filter list: exactly Solr's answer to the positive filter.
      const filtered = await query({ q: 'laptop' });
      const expected = await direct({
        q: 'laptop',
        fq: `brand:(${kept.map((b) => JSON.stringify(b)).join(' OR ')})`,
      });
      assert.ok(foundBy(filtered) < foundBy(base.laptop));
      assert.equal(foundBy(filtered), foundBy(expected));
      assert.deepEqual(idsOf(filtered), idsOf(expected));
      assert.ok(docsOf(filtered).every((d) => kept.includes(d.brand)));
      assert.deepEqual(filtered.body.fusion.effect.filters[0].values, kept);

      // Boost by attribute: the brand's documents lead; a negative weight sends the top brand down.
      assert.equal(docsOf(await query({ q: 'mug' }))[0]!.brand, raisedBrand);
      assert.equal(docsOf(await query({ q: 'kettle' }))[0]!.brand, raisedKettleBrand);
      const lowered = docsOf(await query({ q: 'monitor' }));
      assert.notEqual(lowered[0]!.brand, topMonitorBrand);
      assert.equal(foundBy(await query({ q: 'monitor' })), foundBy(base.monitor), 'a bury removes nothing');

      // Set params: rows replaced, the filter appended, the default not taken over the profile's sort.
      const toasters = await query({ q: 'toaster' });
      const inStock = await direct({ q: 'toaster', fq: 'in_stock:true', rows: '3' });
      assert.equal(docsOf(toasters).length, 3);
      assert.equal(foundBy(toasters), foundBy(inStock));
      assert.ok(foundBy(toasters) < foundBy(base.toaster));
      assert.deepEqual(idsOf(toasters), idsOf(inStock));
      assert.ok(docsOf(toasters).every((d) => d.in_stock));

      // Response values and the facets, in the rule's order.
      assert.deepEqual(toasters.body.fusion.responseValues, {
        hero: { title: 'Toast week', image: '/t.png' },
        layout: 'grid',
      });
      assert.deepEqual(toasters.body.fusion.facets, ['brand', 'category']);
      const facetFields = toasters.body.facet_counts.facet_fields as Record<string, unknown[]>;
      assert.deepEqual(Object.keys(facetFields), ['brand', 'category']);
      assert.deepEqual(facetFields.category!.slice(0, 1), ['toasters']);
      // Without the rules, no facets and no values.
      const plain = await query({ q: 'laptop' });
      assert.equal(plain.body.facet_counts, undefined);
      assert.deepEqual(plain.body.fusion.responseValues, {});
      assert.equal(plain.body.fusion.facets, null);
    });

    test('a rule of the empty query and a shopper filter drives a category page', async (t) => {
      const { app, access, query } = await setUp(t, engine);
      const page = { q: '', fq: 'category:mugs' };
      const before = await query(page);
      assert.equal(foundBy(before), foundBy(await direct({ q: '*:*', fq: 'category:mugs' })));
      const mugs = docsOf(before);
      const raised = mugs.find((d) => d.brand !== mugs[0]!.brand)!.brand;
      await publishedRule(app, access, {
        type: 'boostAttributes',
        name: 'Mug page brand',
        boosts: [{ fieldName: 'brand', value: raised, weight: 1000 }],
        conditions: { queryMatch: 'empty', fieldValues: [{ fieldName: 'category', values: ['mugs'] }] },
      });
      await publishedRule(app, access, {
        type: 'setFacetList',
        name: 'Browse facets',
        facetFields: ['category', 'brand'],
        conditions: { queryMatch: 'empty' },
      });
      const after = await query(page);
      assert.deepEqual(after.body.fusion.rules.map((r: { name: string }) => r.name).sort(), [
        'Browse facets',
        'Mug page brand',
      ]);
      assert.equal(docsOf(after)[0]!.brand, raised);
      assert.ok(docsOf(after).every((d) => d.category === 'mugs'));
      assert.deepEqual(Object.keys(after.body.facet_counts.facet_fields), ['category', 'brand']);
      // `*:*` is the empty query too; another category's page and a text query are not this page.
      const matchAll = await query({ q: '*:*', fq: 'category:mugs' });
      assert.equal(docsOf(matchAll)[0]!.brand, raised);
      const kettles = await query({ q: '', fq: 'category:kettles' });
      assert.deepEqual(
        kettles.body.fusion.rules.map((r: { name: string }) => r.name),
        ['Browse facets'],
      );
      const text = await query({ q: 'mug', fq: 'category:mugs' });
      assert.deepEqual(text.body.fusion.rules, []);
    });
  });
}
