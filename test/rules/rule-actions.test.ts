// The rule kinds of category pages and campaigns (filter list, boost by attribute, Solr
// parameters, response values, facet order) and the startsWith and empty query matches,
// through the Rules API on both engines: what is refused, what evaluation makes of them, what
// each explains, the listing's type filter and conflicts, and their history.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { build, engines, skipReason } from '../helpers/app.js';
import { publishedRule, type StudioAccess, studioWithToken } from './api.js';

async function evaluate(app: FastifyInstance, access: StudioAccess, search: string) {
  const response = await app.inject({ url: `/em-rules/evaluate?${search}`, headers: access.headers });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

async function post(app: FastifyInstance, access: StudioAccess, body: Record<string, unknown>) {
  return app.inject({ method: 'POST', url: '/em-rules', headers: access.headers, payload: body });
}

for (const engine of engines) {
  describe(`Rule actions on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('each new kind evaluates to its Solr parameters and storefront values, losses explained', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const mugs = { conditions: { queries: ['mugs'] } };
      const filter = await publishedRule(app, access, {
        type: 'filterList',
        name: 'Only mugs',
        fieldName: 'category',
        fieldValues: ['Mugs', 'Cups "tall"'],
        ...mugs,
      });
      const attributes = await publishedRule(app, access, {
        type: 'boostAttributes',
        name: 'Acme up, refurbished down',
        boosts: [
          { fieldName: 'brand', value: 'Acme', weight: 5 },
          { fieldName: 'condition', value: 'refurbished', weight: -2 },
          { query: 'price:[10 TO 20]', weight: 3 },
          { query: 'brand:(Zeta OR Omega)', weight: -1.5 },
        ],
        ...mugs,
      });
      const params = await publishedRule(app, access, {
        type: 'setParams',
        name: 'Twelve rows',
        precedence: 5,
        params: [
          { key: 'rows', value: '12' },
          { key: 'fq', value: 'in_stock:true', policy: 'append' },
          { key: 'mm', policy: 'remove' },
        ],
        ...mugs,
      });
      await publishedRule(app, access, {
        type: 'setParams',
        name: 'Thirty rows',
        params: [
          { key: 'rows', value: '30' },
          { key: 'sort', value: 'price asc', policy: 'default' },
        ],
        ...mugs,
      });
      const values = await publishedRule(app, access, {
        type: 'responseValue',
        name: 'Hero',
        precedence: 5,
        responseValues: [
          { key: 'hero', value: { title: 'Mug week', image: '/m.png' } },
          { key: 'theme', value: 'autumn' },
        ],
        ...mugs,
      });
      await publishedRule(app, access, {
        type: 'responseValue',
        name: 'Other hero',
        responseValues: [
          { key: 'hero', value: 'plain' },
          { key: 'layout', value: 3 },
        ],
        ...mugs,
      });
      const facets = await publishedRule(app, access, {
        type: 'setFacetList',
        name: 'Brand first',
        precedence: 5,
        facetFields: ['brand', 'category', 'price'],
        ...mugs,
      });
      await publishedRule(app, access, {
        type: 'setFacetList',
        name: 'Category first',
        facetFields: ['category'],
        ...mugs,
      });

      const answer = await evaluate(app, access, 'q=Mugs&explain=true');
      assert.deepEqual(answer.effect.filters, [{ fieldName: 'category', values: ['Mugs', 'Cups "tall"'] }]);
      assert.deepEqual(answer.effect.boosts, [{ fieldName: 'brand', value: 'Acme', weight: 5 }]);
      assert.deepEqual(answer.effect.buries, [{ fieldName: 'condition', value: 'refurbished', weight: 2 }]);
      assert.deepEqual(answer.effect.queryBoosts, [
        { query: 'price:["10" TO "20"]', weight: 3 },
        { query: 'brand:("Zeta" OR "Omega")', weight: -1.5 },
      ]);
      assert.deepEqual(answer.effect.responseValues, {
        hero: { title: 'Mug week', image: '/m.png' },
        theme: 'autumn',
        layout: 3,
      });
      assert.deepEqual(answer.effect.facets, ['brand', 'category', 'price']);
      assert.deepEqual(answer.solr.fq, ['category:("Mugs" OR "Cups \\"tall\\"")']);
      assert.deepEqual(answer.solr.bq, [
        'brand:"Acme"^5',
        '(*:* -condition:"refurbished")^2',
        '(price:["10" TO "20"])^3',
        '(*:* -(brand:("Zeta" OR "Omega")))^1.5',
      ]);
      // The earlier rule's replace wins; its remove and every append apply; the other's default
      // of another key applies too.
      assert.deepEqual(answer.solr.params, [
        { key: 'rows', value: '12', policy: 'replace' },
        { key: 'mm', value: '', policy: 'remove' },
        { key: 'sort', value: 'price asc', policy: 'default' },
        { key: 'fq', value: 'in_stock:"true"', policy: 'append' },
      ]);
      assert.deepEqual(answer.solr.facetFields, ['brand', 'category', 'price']);
      const lost = answer.explanation.lost.map(
        (l: { rule: { name: string }; lost: string; to: { id: string } }) => [l.rule.name, l.lost, l.to.id],
      );
      assert.deepEqual(lost, [
        ['Thirty rows', 'replace rows=30', params.id],
        ['Other hero', 'response value hero', values.id],
        ['Category first', 'facets category', facets.id],
      ]);
      assert.ok(answer.rules.some((r: { id: string }) => r.id === filter.id));
      assert.ok(answer.rules.some((r: { id: string }) => r.id === attributes.id));

      // The listing filters by the new types, in any case.
      const listed = await app.inject({
        url: '/em-rules?types=FILTERLIST,setFacetList',
        headers: access.headers,
      });
      assert.deepEqual(
        listed
          .json()
          .content.map((r: { name: string }) => r.name)
          .sort(),
        ['Brand first', 'Category first', 'Only mugs'],
      );
      // Their history records their contents.
      const history = await app.inject({ url: `/em-rules/${params.id}/history`, headers: access.headers });
      const events = history.json().content;
      assert.deepEqual(events.at(-1).after.staging.params[0], {
        key: 'rows',
        value: '12',
        policy: 'replace',
      });
    });

    test('Solr parameters follow the query profiles policy; bad values of the new kinds are 400s', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const refused: Array<[Record<string, unknown>, string[]]> = [
        [{ params: [{ key: 'qt', value: '/admin' }] }, ['params[0].key']],
        [{ params: [{ key: 'shards.qt', value: 'x' }] }, ['params[0].key']],
        [{ params: [{ key: 'stream.url', value: 'http://x' }] }, ['params[0].key']],
        [{ params: [{ key: 'defType', value: 'lucene' }] }, ['params[0].key']],
        [{ params: [{ key: 'q', value: 'x' }] }, ['params[0].key']],
        [{ params: [{ key: 'fq', value: '{!join from=id to=id fromIndex=other}x:y' }] }, ['params[0].value']],
        [{ params: [{ key: 'mm', value: '\u0024{other}' }] }, ['params[0].value']],
        [{ params: [{ key: 'fl', value: 'id,[subquery]' }] }, ['params[0].value']],
        [{ params: [{ key: 'sort', value: 'query({!x}) desc' }] }, ['params[0].value']],
        [{ params: [{ key: 'fq', value: 'a:b OR c:d' }] }, ['params[0].value']],
        [{ params: [{ key: 'rows' }] }, ['params[0].value']],
        [{ params: [{ key: 'rows', value: '5', policy: 'sometimes' }] }, ['params[0].policy']],
        [{ params: [{ key: 'a b', value: '5' }] }, ['params[0].key']],
      ];
      for (const [body, fields] of refused) {
        const response = await post(app, access, { type: 'setParams', name: 'P', ...body });
        assert.equal(response.statusCode, 400, JSON.stringify(body));
        assert.equal(response.json().code, 'invalid-body');
        assert.deepEqual(
          response.json().errors.map((e: { field: string }) => e.field),
          fields,
          JSON.stringify(body),
        );
      }
      const others: Array<[Record<string, unknown>, string]> = [
        [{ type: 'boostAttributes', boosts: [{ query: '_query_:"{!join}"', weight: 2 }] }, 'boosts[0].query'],
        [{ type: 'boostAttributes', boosts: [{ query: '-brand:acme', weight: 2 }] }, 'boosts[0].query'],
        [
          { type: 'boostAttributes', boosts: [{ fieldName: 'brand', value: 'a', weight: 0 }] },
          'boosts[0].weight',
        ],
        [{ type: 'boostAttributes', boosts: [{ value: 'a', weight: 1 }] }, 'boosts[0]'],
        [
          { type: 'responseValue', responseValues: [{ key: 'big', value: 'x'.repeat(1100) }] },
          'responseValues',
        ],
        [{ type: 'setFacetList', facetFields: ['{!ex=b}brand'] }, 'facetFields[0]'],
        [{ type: 'filterList', fieldName: 'brand', fieldValues: [] }, 'fieldValues'],
        [
          {
            type: 'banner',
            bannerUrl: 'https://b.example/x.png',
            conditions: { queryMatch: 'empty', queries: ['x'] },
          },
          'conditions.queries',
        ],
        [
          { type: 'banner', bannerUrl: 'https://b.example/x.png', conditions: { queryMatch: 'prefix' } },
          'conditions.queryMatch',
        ],
      ];
      for (const [body, field] of others) {
        const response = await post(app, access, { name: 'X', ...body });
        assert.equal(response.statusCode, 400, JSON.stringify(body));
        assert.deepEqual(
          response.json().errors.map((e: { field: string }) => e.field),
          [field],
          JSON.stringify(body),
        );
      }
      const listing = await app.inject({ url: '/em-rules', headers: access.headers });
      assert.equal(listing.json().page.totalElements, 0, 'nothing refused was created');
    });

    test('startsWith, the empty query and the shopper filters of category pages', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      await publishedRule(app, access, {
        type: 'banner',
        name: 'Red things',
        bannerUrl: 'https://b.example/red.png',
        conditions: { queries: ['Red shoes'], queryMatch: 'startsWith' },
      });
      await publishedRule(app, access, {
        type: 'setFacetList',
        name: 'Browse facets',
        facetFields: ['category', 'brand'],
        conditions: { queryMatch: 'empty' },
      });
      await publishedRule(app, access, {
        type: 'responseValue',
        name: 'Shoe page',
        responseValues: [{ key: 'title', value: 'All shoes' }],
        conditions: { queryMatch: 'empty', fieldValues: [{ fieldName: 'category', values: ['Shoes'] }] },
      });
      const names = async (search: string) =>
        (await evaluate(app, access, search)).rules.map((r: { name: string }) => r.name).sort();
      assert.deepEqual(await names('q=red%20shoes%20sale'), ['Red things']);
      assert.deepEqual(await names('q=RED%20Shoes'), ['Red things']);
      assert.deepEqual(await names('q=red'), []);
      assert.deepEqual(await names('q=sale%20red%20shoes'), []);
      assert.deepEqual(await names('q=red%20shoesx'), []);
      assert.deepEqual(await names('q='), ['Browse facets']);
      assert.deepEqual(await names('q=*:*'), ['Browse facets']);
      assert.deepEqual(await names('q=%20'), ['Browse facets']);
      assert.deepEqual(await names('q=shoes'), []);
      assert.deepEqual(await names('q=&filter=category:Shoes'), ['Browse facets', 'Shoe page']);
      assert.deepEqual(await names('q=*:*&filter=category:Mugs'), ['Browse facets']);
      assert.deepEqual(await names('q=shoes&filter=category:Shoes'), []);
      const browse = await evaluate(app, access, 'q=*:*');
      assert.equal(browse.solr.q, '*:*');
      assert.equal(browse.rewrittenQuery, '');
    });

    test('conflicts of the new kinds are reported in the listing', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const on = { conditions: { queries: ['mugs'] } };
      await publishedRule(app, access, {
        type: 'filterList',
        name: 'F1',
        fieldName: 'category',
        fieldValues: ['Mugs'],
        ...on,
      });
      await publishedRule(app, access, {
        type: 'filterList',
        name: 'F2',
        fieldName: 'category',
        fieldValues: ['Cups'],
        ...on,
      });
      await publishedRule(app, access, {
        type: 'blockList',
        name: 'B',
        fieldName: 'category',
        fieldValues: ['Mugs'],
        ...on,
      });
      await publishedRule(app, access, {
        type: 'setParams',
        name: 'P1',
        params: [{ key: 'rows', value: '5' }],
        ...on,
      });
      await publishedRule(app, access, {
        type: 'setParams',
        name: 'P2',
        params: [{ key: 'rows', value: '9' }],
        ...on,
      });
      await publishedRule(app, access, {
        type: 'setParams',
        name: 'P3',
        params: [{ key: 'rows', value: '9', policy: 'append' }],
        ...on,
      });
      await publishedRule(app, access, {
        type: 'responseValue',
        name: 'R1',
        responseValues: [{ key: 'k', value: 1 }],
        ...on,
      });
      await publishedRule(app, access, {
        type: 'responseValue',
        name: 'R2',
        responseValues: [{ key: 'k', value: 2 }],
        ...on,
      });
      await publishedRule(app, access, { type: 'setFacetList', name: 'S1', facetFields: ['brand'], ...on });
      await publishedRule(app, access, { type: 'setFacetList', name: 'S2', facetFields: ['brand'], ...on });
      await publishedRule(app, access, {
        type: 'setFacetList',
        name: 'S3',
        facetFields: ['category'],
        conditions: { queries: ['cups'] },
      });
      await publishedRule(app, access, {
        type: 'boostAttributes',
        name: 'A',
        boosts: [{ fieldName: 'category', value: 'Mugs', weight: -3 }],
        ...on,
      });
      await publishedRule(app, access, {
        type: 'boostList',
        name: 'Up',
        fieldName: 'category',
        fieldValues: ['Mugs'],
        ...on,
      });
      const listing = await app.inject({
        url: '/em-rules?fields=CONFLICTS&size=100',
        headers: access.headers,
      });
      const conflicts = new Map<string, string[]>(
        listing
          .json()
          .content.map((r: { name: string; conflicts: Array<{ name: string }> }) => [
            r.name,
            r.conflicts.map((c) => c.name).sort(),
          ]),
      );
      assert.deepEqual(conflicts.get('F1'), ['B', 'F2']);
      assert.deepEqual(conflicts.get('F2'), ['F1']);
      assert.deepEqual(conflicts.get('P1'), ['P2']);
      assert.deepEqual(conflicts.get('P3'), []);
      assert.deepEqual(conflicts.get('R1'), ['R2']);
      assert.deepEqual(conflicts.get('S1'), []);
      assert.deepEqual(conflicts.get('S3'), []);
      assert.deepEqual(conflicts.get('A'), ['Up']);
    });
  });
}
