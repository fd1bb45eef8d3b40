import assert from 'node:assert/strict';
import { describe, type TestContext, test } from 'node:test';
import fc from 'fast-check';
import { QUERY_ROUTE } from '../../src/query/query-lane.js';
import { call } from '../helpers/api.js';
import { adminAuth, contractTest, engines, skipReason } from '../helpers/app.js';
import { assertCounted, laneAndRouteNodes } from '../helpers/lanes.js';
import { wireGet } from '../helpers/raw-request.js';
import { publishedRule, studioWithToken } from '../rules/api.js';
import { ATTACKS } from './attacks.js';
import { startSelectSolr } from './select-solr.js';

const QUERY = '/api/apps/shop/query/web';

/**
 * A node with lanes and one without, over one node playing Solr (a standalone cluster, so
 * both send to the same node), a profile `web` with rules that fire, and two keys.
 */
async function twoNodes(t: TestContext, engine: (typeof engines)[number]) {
  const solr = await startSelectSolr();
  t.after(() => solr.close());
  const nodes = await laneAndRouteNodes(t, engine, async (fast) => {
    const access = await studioWithToken(fast, 'studio1');
    await publishedRule(fast, access, {
      type: 'blockList',
      name: 'Block',
      fieldName: 'id',
      fieldValues: ['P1', 'P"2'],
      conditions: { queries: ['laptop'] },
    });
    await publishedRule(fast, access, {
      type: 'redirect',
      name: 'Sale',
      url: 'https://shop.example/sale',
      segments: ['members'],
      conditions: { queries: ['sale'] },
    });
    for (const [path, body] of [
      ['/api/apps/shop/searchCluster', { id: 'one', cloud: false, connectString: solr.baseUrl }],
      [
        '/api/apps/shop/query-profiles',
        {
          id: 'web',
          searchCluster: 'one',
          collection: 'products',
          studio: 'studio1',
          defaults: { rows: 10, defType: 'edismax', qf: 'name' },
          allowedParams: ['rows', 'start', 'fq', 'sort', 'fl'],
          logSearches: false,
        },
      ],
      ['/api/apps/shop/query-profiles', { id: 'app', searchCluster: 'one', collection: 'products' }],
    ] as const) {
      const created = await call(fast, 'POST', path, body);
      assert.equal(created.status, 200, JSON.stringify(created.body));
    }
    const key = await call(fast, 'POST', '/api/apps/shop/query-profiles/web/keys');
    const other = await call(fast, 'POST', '/api/apps/shop/query-profiles/app/keys');
    return {
      key: key.body.key as string,
      keyId: key.body.id as string,
      otherKey: other.body.key as string,
    };
  });
  const answered = () => nodes.fast.parts.lanes.answered(QUERY_ROUTE);
  const bearer = { authorization: `Bearer ${nodes.prepared.key}`, 'x-request-id': 'trace-1' };
  return { ...nodes, ...nodes.prepared, solr, answered, bearer };
}

type Nodes = Awaited<ReturnType<typeof twoNodes>>;

/**
 * The same request to both nodes answers the same bytes, and Solr receives the same
 * parameters from each (as many requests, in the same order).
 */
async function sameOnBoth(nodes: Nodes, target: string, headers: Record<string, string>): Promise<string> {
  const before = nodes.solr.received.length;
  const expected = await wireGet(nodes.routePort, target, headers);
  const sentByRoute = nodes.solr.received.slice(before).map(String);
  const middle = nodes.solr.received.length;
  assert.equal(
    await wireGet(nodes.fastPort, target, headers),
    expected,
    `${target} ${JSON.stringify(headers)}`,
  );
  assert.deepEqual(nodes.solr.received.slice(middle).map(String), sentByRoute, target);
  return expected;
}

for (const engine of engines) {
  describe(`shoppers' queries before routing on ${engine}`, { skip: await skipReason(engine) }, () => {
    const contract = contractTest(engine);
    test('answer byte for byte what the route answers, send Solr the same, and are counted', async (t) => {
      const nodes = await twoNodes(t, engine);
      const queries = [
        'q=laptop',
        'q=%20LAPTOP%20',
        'q=laptop&rows=5&start=10',
        'q=sale&segment=members',
        'q=sale&segment=guests',
        'q=laptop&fq=brand:acme&fq=color:red&sort=price+asc',
        'q=laptop&qt=/update&shards=evil&stream.body=x&tracking=abc',
        'q=',
        '',
        'q=caf%C3%A9+cr%C3%A8me',
      ];
      const before = nodes.answered();
      for (const query of queries) {
        const answer = await sameOnBoth(nodes, `${QUERY}?${query}`, nodes.bearer);
        assert.match(answer, /^HTTP\/1\.1 200 /, query);
      }
      const bare = await sameOnBoth(nodes, QUERY, nodes.bearer);
      assert.match(bare, /^HTTP\/1\.1 200 /);
      assert.equal(nodes.answered() - before, queries.length + 1);
      assert.equal(nodes.route.parts.lanes.answered(QUERY_ROUTE), 0);
      await assertCounted(nodes.fast, QUERY_ROUTE, queries.length + 1);
      const blocked = await sameOnBoth(nodes, `${QUERY}?q=laptop`, nodes.bearer);
      assert.match(blocked, /"rules":\[\{[^\]]*"name":"Block"/, 'the live rule fired');
    });

    contract('leave every other request to the route, which answers it as before', async (t) => {
      const nodes = await twoNodes(t, engine);
      const { bearer } = nodes;
      const cases: Array<[string, Record<string, string>]> = [
        [`${QUERY}?q=laptop`, {}],
        [`${QUERY}?q=laptop`, { authorization: 'Bearer sdq_nope_nope' }],
        [`${QUERY}?q=laptop`, { authorization: `Bearer ${nodes.otherKey}` }],
        [`${QUERY}?q=laptop`, { authorization: adminAuth }],
        ['/api/apps/shop/query/nope?q=laptop', bearer],
        ['/api/apps/other/query/web?q=laptop', bearer],
        [`${QUERY}/?q=laptop`, bearer],
        ['/api/apps/shop/query/w%65b?q=laptop', bearer],
        ['/api/apps/shop/query-profiles/web', bearer],
        ['/api/apps/shop/query-profiles', bearer],
        ['/api/apps/', bearer],
        [`${QUERY}?q=a&q=b`, bearer],
        [`${QUERY}?q=${'x'.repeat(1001)}`, bearer],
        [`${QUERY}?q=laptop&segment=`, bearer],
        [`${QUERY}?q=laptop&fq=%7B!join%20from=a%20to=b%7Dx`, bearer],
      ];
      const before = nodes.answered();
      for (const [target, given] of cases)
        await sameOnBoth(nodes, target, { 'x-request-id': 'trace-2', ...given });
      assert.equal(nodes.answered(), before);
    });

    contract('answer 400 naming the parameter for values Solr would run, sending nothing', async (t) => {
      const nodes = await twoNodes(t, engine);
      const before = nodes.answered();
      const sent = nodes.solr.received.length;
      for (const [name, value] of ATTACKS) {
        const target = `${QUERY}?q=laptop&${name}=${encodeURIComponent(value)}`;
        // Through a node with the lane and one without: the route answers both, the same.
        const answer = await sameOnBoth(nodes, target, nodes.bearer);
        assert.match(answer, /^HTTP\/1\.1 400 /, `${name}=${value}`);
        const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
        assert.equal(body.code, 'invalid-parameter');
        assert.deepEqual(
          body.errors.map((e: { field: string }) => e.field),
          [name],
        );
      }
      assert.equal(nodes.solr.received.length, sent, 'Solr received none of them');
      assert.equal(nodes.answered(), before);
    });

    contract(
      'a query the lane sent that Solr failed is answered by the route, never sent twice',
      async (t) => {
        const nodes = await twoNodes(t, engine);
        for (const mode of ['down', 'error'] as const) {
          nodes.solr.mode = mode;
          const before = nodes.answered();
          const answer = await sameOnBoth(nodes, `${QUERY}?q=laptop`, nodes.bearer);
          assert.match(answer, /^HTTP\/1\.1 502 /, mode);
          assert.match(answer, /"code":"solr-failed"/, mode);
          assert.equal(nodes.answered(), before, mode);
        }
        nodes.solr.mode = 'ok';
        assert.match(await wireGet(nodes.fastPort, `${QUERY}?q=laptop`, nodes.bearer), /^HTTP\/1\.1 200 /);
      },
    );

    contract('agree with the route on any query a shopper may type', async (t) => {
      const nodes = await twoNodes(t, engine);
      const text = fc.oneof(
        fc.constantFrom('laptop', 'LAPTOP', 'sale', ' ', '', '{!join from=a to=b}x', 'a:"b"'),
        fc.string({ maxLength: 12 }),
        fc.string({ unit: 'grapheme', maxLength: 6 }),
      );
      const pair = fc.tuple(fc.constantFrom('q', 'rows', 'fq', 'sort', 'segment', 'qt', 'x'), text);
      await fc.assert(
        fc.asyncProperty(fc.array(pair, { maxLength: 4 }), async (pairs) => {
          const search = pairs.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&');
          await sameOnBoth(nodes, `${QUERY}?${search}`, nodes.bearer);
        }),
        { numRuns: 60 },
      );
    });

    test('stop answering for a key the moment it is revoked', async (t) => {
      const nodes = await twoNodes(t, engine);
      const target = `${QUERY}?q=laptop`;
      assert.match(await wireGet(nodes.fastPort, target, nodes.bearer), /^HTTP\/1\.1 200 /);
      const before = nodes.answered();
      const revoked = await call(
        nodes.fast,
        'DELETE',
        `/api/apps/shop/query-profiles/web/keys/${nodes.keyId}`,
      );
      assert.equal(revoked.status, 204);
      assert.match(await wireGet(nodes.fastPort, target, nodes.bearer), /^HTTP\/1\.1 401 /);
      assert.equal(nodes.answered(), before);
    });
  });
}
