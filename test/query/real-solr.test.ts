// The query endpoint against the run's real SolrCloud (test/helpers/solr.ts): what each rule kind
// and rewrite does to the result list Solr answers, staging against live, segments, Solr's own
// errors, a node stopped while shoppers query, and a shopper's values that would join other
// cores. The answers are compared with the unmerchandised answer and with Solr asked directly.
import assert from 'node:assert/strict';
import { before, describe, type TestContext, test } from 'node:test';
import { sampleCatalog } from '../../src/demo/catalog.js';
import type { Engine } from '../../src/storage/database.js';
import { type Answer, call } from '../helpers/api.js';
import { adminAuth, build, contractTest, engines, skipReason } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';
import {
  addSolrNode,
  selectDirect,
  solrAdmin,
  solrSkipReason,
  stopSolrNode,
  type TestSolr,
  testSolr,
} from '../helpers/solr.js';
import { createRewrite, publish as publishRewrite } from '../rewrites/api.js';
import { createRule, publishedRule } from '../rules/api.js';
import { ATTACKS } from './attacks.js';
import { shopOnTestSolr } from './solr-shop.js';

const APP = 'shop';
type Params = Record<string, string | string[]>;
interface Doc {
  id: string;
  brand: string;
  category: string;
  price: number;
}

/**
 * What every query of the test profile sends besides the shopper's parameters: the products
 * configset's handler adds edismax, its qf and q.op=AND. The id breaks ties of score, so that
 * the order is the same on either replica and the same as Solr's own answer.
 */
const DEFAULTS = { rows: '10', fl: 'id,brand,category,price', sort: 'score desc,id asc' };

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
  describe(`Query endpoint against the real SolrCloud on ${engine}`, {
    skip: (await skipReason(engine)) ?? solrSkipReason(),
  }, () => {
    const contract = contractTest(engine);
    let solr: TestSolr;
    before(async () => {
      solr = await testSolr();
    });

    /** Solr's own answer with the profile's defaults: the reference. */
    async function direct(params: Params) {
      const answer = await selectDirect(solr, { ...DEFAULTS, ...params });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return answer;
    }

    /** An app whose cluster is the run's SolrCloud, a studio with a token, a profile and its key. */
    async function setUp(t: TestContext, on: Engine, options: { profile?: Record<string, unknown> } = {}) {
      const { app } = await build(t, on);
      const { access, key } = await shopOnTestSolr(app, solr, {
        defaults: DEFAULTS,
        allowedParams: ['rows', 'start', 'fq', 'sort'],
        ...options.profile,
      });
      /** A shopper's query, answered 200 unless `status` says otherwise. */
      const query = async (params: Params, status = 200) => {
        const answer = await call(
          app,
          'GET',
          `/api/apps/${APP}/query/web?${search(params)}`,
          undefined,
          `Bearer ${key}`,
        );
        assert.equal(answer.status, status, JSON.stringify(answer.body));
        return answer;
      };
      return { app, access, query, key };
    }

    const onQuery = (q: string) => ({ conditions: { queries: [q] } });

    test('each rule kind changes the result list Solr answers', async (t) => {
      const { app, access, query } = await setUp(t, engine);
      // The unmerchandised answers, before any rule: Solr's own.
      const base = {
        kettle: await query({ q: 'kettle' }),
        toaster: await query({ q: 'toaster' }),
        blender: await query({ q: 'blender' }),
        mug: await query({ q: 'mug' }),
        monitor: await query({ q: 'monitor' }),
        headphones: await query({ q: 'headphones' }),
      };
      for (const [q, answer] of Object.entries(base)) {
        assert.deepEqual(
          idsOf(answer),
          idsOf(await direct({ q })),
          `${q}: the endpoint answers as Solr does`,
        );
        assert.equal(idsOf(answer).length, 10);
        assert.deepEqual(answer.body.fusion.rules, []);
      }
      const laptop = idsOf(await direct({ q: 'laptop', rows: '1' }))[0]!;
      const kettles = idsOf(base.kettle);
      const blenders = idsOf(base.blender);
      const mugs = docsOf(base.mug);
      // A brand first found below the top (its position is compared), and the top's brand.
      const boosted = mugs.find((d) => d.brand !== mugs[0]!.brand)!;
      const buried = docsOf(base.monitor)[0]!;

      await publishedRule(app, access, {
        type: 'blockList',
        name: 'Block two kettles',
        fieldName: 'id',
        fieldValues: [kettles[0], kettles[2]],
        ...onQuery('kettle'),
      });
      await publishedRule(app, access, {
        type: 'blockList',
        name: 'Block two brands of toasters',
        fieldName: 'brand',
        fieldValues: ['Acme', 'Bolt'],
        ...onQuery('toaster'),
      });
      await publishedRule(app, access, {
        type: 'pinned',
        name: 'Pin a laptop and a blender',
        pinnedValues: [
          { value: laptop, position: 1 },
          { value: blenders[5], position: 2 },
        ],
        ...onQuery('blender'),
      });
      await publishedRule(app, access, {
        type: 'boostList',
        name: 'Boost a brand of mugs',
        fieldName: 'brand',
        fieldValues: [boosted.brand],
        boost: 10,
        ...onQuery('mug'),
      });
      await publishedRule(app, access, {
        type: 'buryList',
        name: 'Bury a brand of monitors',
        fieldName: 'brand',
        fieldValues: [buried.brand],
        boost: 10,
        ...onQuery('monitor'),
      });
      await publishedRule(app, access, {
        type: 'redirect',
        name: 'Go to the headphones page',
        url: 'https://shop.example/headphones',
        ...onQuery('headphones'),
      });
      await publishedRule(app, access, {
        type: 'banner',
        name: 'Headphones banner',
        bannerUrl: 'https://b.example/headphones.png',
        zone: 'side',
        ...onQuery('headphones'),
      });

      // Blocked ids are gone (fq and excludeIds); the others keep their order.
      const blocked = await query({ q: 'kettle' });
      assert.equal(foundBy(blocked), foundBy(base.kettle) - 2);
      assert.deepEqual(
        idsOf(blocked).slice(0, 8),
        kettles.filter((id) => id !== kettles[0] && id !== kettles[2]),
      );
      assert.deepEqual(
        blocked.body.fusion.rules.map((r: { name: string }) => r.name),
        ['Block two kettles'],
      );

      // Blocked by a field's value: as Solr answers the negative filter.
      const byBrand = await query({ q: 'toaster' });
      const expected = await direct({ q: 'toaster', fq: '-brand:(Acme OR Bolt)' });
      assert.ok(foundBy(byBrand) < foundBy(base.toaster));
      assert.equal(foundBy(byBrand), foundBy(expected));
      assert.deepEqual(idsOf(byBrand), idsOf(expected));
      assert.ok(docsOf(byBrand).every((d) => d.brand !== 'Acme' && d.brand !== 'Bolt'));

      // Pinned ids first in their order, even a document the query does not find (the laptop);
      // the others follow in their order.
      const pinned = await query({ q: 'blender' });
      assert.deepEqual(idsOf(pinned).slice(0, 2), [laptop, blenders[5]]);
      assert.deepEqual(idsOf(pinned).slice(2), blenders.filter((id) => id !== blenders[5]).slice(0, 8));
      assert.equal(foundBy(pinned), foundBy(base.blender) + 1);
      // Whatever the shopper sorts by, and on the next page they are not repeated.
      const byPrice = await query({ q: 'blender', sort: 'price desc' });
      assert.deepEqual(idsOf(byPrice).slice(0, 2), [laptop, blenders[5]]);
      const prices = docsOf(byPrice)
        .slice(2)
        .map((d) => d.price);
      assert.deepEqual(
        prices,
        [...prices].sort((a, b) => b - a),
      );
      const next = await query({ q: 'blender', start: '10' });
      assert.ok(!idsOf(next).includes(laptop) && !idsOf(next).includes(blenders[5]!));

      // A boost moves the brand's documents up, a bury moves the brand's down.
      const boostedAnswer = await query({ q: 'mug' });
      assert.equal(foundBy(boostedAnswer), foundBy(base.mug));
      assert.equal(idsOf(boostedAnswer)[0], boosted.id, 'the first of the brand is now first');
      assert.ok(idsOf(base.mug).indexOf(boosted.id) > 0);
      const brandMugs = foundBy(await direct({ q: 'mug', fq: `brand:${boosted.brand}`, rows: '0' }));
      assert.ok(brandMugs >= 10);
      assert.ok(docsOf(boostedAnswer).every((d) => d.brand === boosted.brand));

      const buriedAnswer = await query({ q: 'monitor' });
      assert.equal(foundBy(buriedAnswer), foundBy(base.monitor));
      assert.ok(!idsOf(buriedAnswer).includes(buried.id), 'the first monitor left the first page');
      assert.ok(docsOf(buriedAnswer).every((d) => d.brand !== buried.brand));
      const last = await query({ q: 'monitor', start: String(foundBy(base.monitor) - 1) });
      assert.equal(docsOf(last)[0]!.brand, buried.brand, 'the buried brand ends the list');

      // Redirect and banners are in fusion; the documents are Solr's unmerchandised answer.
      const landing = await query({ q: 'headphones' });
      assert.deepEqual(idsOf(landing), idsOf(base.headphones));
      assert.equal(landing.body.fusion.redirect, 'https://shop.example/headphones');
      assert.deepEqual(landing.body.fusion['landing-pages'], ['https://shop.example/headphones']);
      assert.deepEqual(landing.body.fusion.banners, [
        { url: 'https://b.example/headphones.png', zone: 'side' },
      ]);
      assert.deepEqual(landing.body.fusion.rules.map((r: { name: string }) => r.name).sort(), [
        'Go to the headphones page',
        'Headphones banner',
      ]);
    });

    test('each rewrite changes what Solr finds', async (t) => {
      const { app, access, query } = await setUp(t, engine);
      const found = async (q: string) => foundBy(await direct({ q, rows: '0' }));
      // What Solr finds for the queries as the shopper types them.
      const plain = {
        laptop: await found('laptop'),
        notebook: await found('notebook'),
        kettel: await found('kettel'),
        cheapToaster: await found('cheap toaster'),
        redLaptop: await found('red laptop'),
        camping: await found('acme kettle for camping'),
      };
      for (const q of ['laptop', 'kettel', 'cheap toaster', 'red laptop', 'acme kettle for camping'])
        assert.equal(foundBy(await query({ q, rows: '0' })), await found(q), `${q} before the rewrites`);
      assert.equal(plain.kettel, 0);
      assert.equal(plain.cheapToaster, 0);
      assert.equal(plain.camping, 0);

      for (const body of [
        { type: 'synonym', synonyms: ['laptop', 'notebook'] },
        { type: 'misspelling', misspelling: 'kettel', correction: 'kettle' },
        { type: 'removeWords', words: ['cheap'] },
        { type: 'phrase', phrase: 'red laptop' },
        { type: 'headTail', query: 'acme kettle for camping', head: 'acme kettle' },
      ]) {
        const rewrite = await createRewrite(app, access, body);
        await publishRewrite(app, access, rewrite.id);
      }
      // A publish answers before evaluation has read the live rewrites again (docs/rules.md).
      await eventually(async () => {
        const evaluated = await call(
          app,
          'GET',
          '/api/studios/studio1/evaluate?q=acme%20kettle%20for%20camping',
        );
        return evaluated.body.rewrites.length === 1;
      });
      const rewritten = async (q: string) => {
        const answer = await query({ q, rows: '0' });
        return {
          found: foundBy(answer),
          types: answer.body.fusion.rewrites.map((r: { type: string }) => r.type),
        };
      };

      // Synonyms both ways: the laptops and the notebooks (the catalog has both categories).
      const both = await found('laptop OR notebook');
      assert.ok(both > plain.laptop && both > plain.notebook);
      assert.deepEqual(await rewritten('laptop'), { found: both, types: ['synonym'] });
      assert.deepEqual(await rewritten('notebook'), { found: both, types: ['synonym'] });
      // A misspelling finds the kettles; a removed word no longer empties the answer.
      assert.deepEqual(await rewritten('kettel'), { found: await found('kettle'), types: ['misspelling'] });
      assert.deepEqual(await rewritten('cheap toaster'), {
        found: await found('toaster'),
        types: ['removeWords'],
      });
      // A phrase is searched as one: red laptops, no longer the red backpacks with a laptop sleeve.
      const phrase = await rewritten('red laptop');
      assert.equal(phrase.found, await found('"red laptop"'));
      assert.ok(phrase.found > 0 && phrase.found < plain.redLaptop);
      assert.ok(phrase.types.includes('phrase'));
      // Head-tail keeps the head of a query that finds nothing.
      assert.deepEqual(await rewritten('acme kettle for camping'), {
        found: await found('acme kettle'),
        types: ['headTail'],
      });
      assert.ok((await found('acme kettle')) > 0);
    });

    test('a rule or rewrite in staging changes nothing for shoppers until it is published', async (t) => {
      const { app, access, query } = await setUp(t, engine);
      const base = await query({ q: 'toaster' });
      const [first, second] = idsOf(base);
      const rule = await createRule(app, access, {
        type: 'blockList',
        name: 'Block a toaster',
        fieldName: 'id',
        fieldValues: [first],
        ...onQuery('toaster'),
      });
      assert.deepEqual(idsOf(await query({ q: 'toaster' })), idsOf(base), 'a draft does not fire');
      const rewrite = await createRewrite(app, access, {
        type: 'misspelling',
        misspelling: 'toastr',
        correction: 'toaster',
      });
      assert.equal(foundBy(await query({ q: 'toastr' })), 0, 'a draft rewrite does not apply');

      const published = await app.inject({
        method: 'POST',
        url: `/em-rules/${rule.id}/publish`,
        headers: access.headers,
      });
      assert.equal(published.statusCode, 200, published.body);
      await publishRewrite(app, access, rewrite.id);
      const live = await query({ q: 'toaster' });
      assert.ok(!idsOf(live).includes(first!) && idsOf(live).includes(second!));
      // The rewrite's publish answers before evaluation reads the live rewrites again: the rule
      // then matches the corrected query.
      await eventually(async () => foundBy(await query({ q: 'toastr' })) === foundBy(base) - 1);

      // Staging edited: shoppers keep the live content; the editor's preview (evaluation of the
      // staging content) already names the new value. The query endpoint serves live only.
      const edited = await app.inject({
        method: 'PUT',
        url: `/em-rules/${rule.id}`,
        headers: access.headers,
        payload: { ...rule, fieldValues: [second] },
      });
      assert.equal(edited.statusCode, 200, edited.body);
      assert.deepEqual(idsOf(await query({ q: 'toaster' })), idsOf(live));
      const preview = await app.inject({
        method: 'POST',
        url: '/em-rules/evaluate',
        headers: access.headers,
        payload: { q: 'toaster', useStaging: true },
      });
      assert.deepEqual(preview.json().solr.excludeIds, second);
      const republished = await app.inject({
        method: 'POST',
        url: `/em-rules/${rule.id}/publish`,
        headers: access.headers,
      });
      assert.equal(republished.statusCode, 200, republished.body);
      const now = await query({ q: 'toaster' });
      assert.ok(idsOf(now).includes(first!) && !idsOf(now).includes(second!));
    });

    contract("a segment's rule fires for that segment only", async (t) => {
      const { app, access, query } = await setUp(t, engine);
      const base = idsOf(await query({ q: 'keyboard' }));
      await publishedRule(app, access, {
        type: 'pinned',
        name: 'VIP pin',
        segments: ['vip'],
        pinnedValues: [{ value: base[7], position: 1 }],
        ...onQuery('keyboard'),
      });
      assert.deepEqual(idsOf(await query({ q: 'keyboard' })), base);
      assert.deepEqual(idsOf(await query({ q: 'keyboard', segment: 'guest' })), base);
      for (const segment of [['vip'], ['guest', 'vip']]) {
        const vip = await query({ q: 'keyboard', segment });
        assert.equal(idsOf(vip)[0], base[7], segment.join());
        assert.deepEqual(
          vip.body.fusion.rules.map((r: { name: string }) => r.name),
          ['VIP pin'],
        );
      }
    });

    contract("Solr refusing a query: 400 with Solr's own message, not retried, no trace", async (t) => {
      const { app, query } = await setUp(t, engine);
      const answer = await query({ q: 'kettle', sort: 'nope asc' }, 400);
      const reference = await selectDirect(solr, { q: 'kettle', sort: 'nope asc' });
      assert.equal(reference.status, 400);
      const solrMessage = (reference.body as { error: { msg: string } }).error.msg;
      assert.match(solrMessage, /nope/);
      assert.equal(answer.body.code, 'solr-rejected');
      assert.equal(answer.body.status, 400);
      assert.equal(answer.body.details.solr, solrMessage);
      assert.equal(answer.body.details.status, 400);
      assert.equal(answer.body.details.collection, solr.collection);
      assert.equal(answer.body.message, `Solr refused the query: ${solrMessage}`);
      assert.doesNotMatch(JSON.stringify(answer.body), /org\.apache|Exception|trace/);
      const metrics = await app.inject({ url: '/metrics', headers: { authorization: adminAuth } });
      // One node asked: another would refuse it too.
      const failures = [...metrics.body.matchAll(/searchdeck_query_node_failures_total\{[^}]*\} (\d+)/g)];
      assert.deepEqual(
        failures.map((m) => m[1]),
        ['1'],
      );
      assert.match(
        metrics.body,
        /searchdeck_query_requests_total\{profile="shop\/web",outcome="solr-rejected"\} 1/,
      );
    });

    contract('a node stopped while shoppers query: every answer is 200 from another node', async (t) => {
      const admin = solrAdmin(solr);
      const node = await addSolrNode(solr);
      const collection = `query_nodes_${process.pid}`;
      await admin.createCollection(collection, {
        configset: 'products',
        replicas: 2,
        nodes: [solr.nodes[0]!.nodeName, node.nodeName],
      });
      t.after(() => admin.deleteCollection(collection));
      await admin.index(collection, sampleCatalog(40));
      const { app, key } = await setUp(t, engine, { profile: { collection } });
      const nodeNames = async () =>
        (await app.parts.query.nodesOf('solr')).nodes.nodes().map((n: { name: string }) => n.name);
      assert.ok((await nodeNames()).includes(node.nodeName));
      /** The queries the node failed so far, of every kind. */
      const failuresOf = async (name: string) => {
        const metrics = await app.inject({ url: '/metrics', headers: { authorization: adminAuth } });
        let sum = 0;
        for (const line of metrics.body.split('\n'))
          if (line.startsWith('searchdeck_query_node_failures_total') && line.includes(`node="${name}"`))
            sum += Number(line.slice(line.lastIndexOf(' ') + 1));
        return sum;
      };

      const answers: Answer[] = [];
      let firing = true;
      const shopper = async () => {
        while (firing) {
          answers.push(
            await call(app, 'GET', `/api/apps/${APP}/query/web?q=&rows=0`, undefined, `Bearer ${key}`),
          );
        }
      };
      const shoppers = [shopper(), shopper(), shopper()];
      try {
        // The new node is one of those queried, then it stops.
        await eventually(() => answers.some((a) => a.body?.fusion?.node === node.nodeName), {
          message: 'no query went to the new node',
        });
        await stopSolrNode(solr, node);
        await eventually(async () => !(await nodeNames()).includes(node.nodeName), {
          within: 2000,
          message: 'the stopped node is still listed',
        });
        const after = answers.length;
        await eventually(() => answers.length >= after + 30);
        // Every query in flight now was sent after the list changed: none is sent to the node.
        const failuresThen = await failuresOf(node.nodeName);
        const then = answers.length;
        await eventually(() => answers.length >= then + 30);
        assert.equal(await failuresOf(node.nodeName), failuresThen, 'a query was sent to the stopped node');
      } finally {
        firing = false;
        await Promise.all(shoppers);
      }
      const statuses = new Map<number, number>();
      for (const answer of answers) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      assert.deepEqual([...statuses.keys()], [200], JSON.stringify(answers.find((a) => a.status !== 200)));
      for (const answer of answers) assert.equal(foundBy(answer), 40);
    });

    contract("a shopper's value joining another core is refused before Solr; q finds nothing", async (t) => {
      const { app, query } = await setUp(t, engine, {
        // The admin's choice of parser: the standard one, which runs local parameters in q.
        profile: { defaults: { ...DEFAULTS, defType: 'lucene', df: 'text', 'q.op': 'AND' } },
      });
      const join = '{!join fromIndex=products from=id to=id}brand:Acme';
      // On this Solr the join runs: asked directly it is a yes/no oracle over another core.
      assert.ok(foundBy(await direct({ q: '*:*', fq: `*:* AND ${join}`, rows: '0' })) > 0);
      assert.ok(foundBy(await direct({ q: join, defType: 'lucene', rows: '0' })) > 0);
      assert.ok(foundBy(await direct({ q: `_query_:"${join}"`, defType: 'lucene', rows: '0' })) > 0);

      const attacks = [
        ...ATTACKS.filter(([name]) => name === 'fq' || name === 'sort'),
        ['fq', `*:* AND ${join}`],
        ['fq', `id:* AND _query_:"${join}"`],
        ['fq', `brand:\\{\\!join fromIndex=products from=id to=id\\}Acme`],
        ['fq', `brand:"${join}"`],
      ] as const;
      for (const [name, value] of attacks) {
        const refused = await query({ q: 'kettle', [name]: value }, 400);
        assert.equal(refused.body.code, 'invalid-parameter');
        assert.deepEqual(
          refused.body.errors.map((e: { field: string }) => e.field),
          [name],
          value,
        );
      }
      const metrics = await app.inject({ url: '/metrics', headers: { authorization: adminAuth } });
      assert.doesNotMatch(
        metrics.body,
        /searchdeck_query_solr_duration_seconds_count\{profile="shop\/web"\}/,
      );

      // The shopper's q is evaluation's, its words escaped: searched as words, it finds nothing.
      for (const q of [join, `_query_:"${join}"`, `*:* AND _query_:"${join}"`]) {
        const answer = await query({ q, rows: '0' });
        assert.equal(foundBy(answer), 0, q);
      }
    });

    contract('filters with quoted bounds and values mean on the real Solr what they say', async (t) => {
      const { query } = await setUp(t, engine);
      // Each shopper filter against Solr's own answer to the same filter as the shopper wrote it.
      for (const fq of [
        'price:[10 TO 50]',
        'price:{10 TO 50}',
        'price:[7.99 TO 9.99]',
        'price:{7.99 TO 9.99}',
        'price:["10" TO "50"]',
        'price:[* TO 9.99]',
        'price:[-5 TO 9.5]',
        'popularity:[900 TO *]',
        'brand:[Acme TO Bolt]',
        'brand:{Acme TO Cobalt}',
        'brand:Acme',
        'brand:"Acme"',
        '-brand:(Acme OR Bolt)',
        'category:"coffee machines"',
        'in_stock:false',
        'price:*',
      ]) {
        // An empty q is every document (evaluation escapes a shopper's `*:*`).
        const answer = await query({ q: '', fq, rows: '0' });
        const found = foundBy(await direct({ q: '*:*', fq, rows: '0' }));
        assert.equal(foundBy(answer), found, fq);
        assert.ok(found > 0, `${fq} finds some`);
      }
      const inclusive = foundBy(await query({ q: '', fq: 'price:[7.99 TO 9.99]', rows: '0' }));
      const exclusive = foundBy(await query({ q: '', fq: 'price:{7.99 TO 9.99}', rows: '0' }));
      assert.ok(exclusive < inclusive, 'exclusive bounds stay exclusive when quoted');
      // Quoted, a bound is still read by the field's type: Solr's message for a word as a price.
      const word = await query({ q: '', fq: 'price:[abc TO *]' }, 400);
      assert.equal(word.body.code, 'solr-rejected');
      assert.equal(word.body.details.status, 400);
      assert.match(word.body.details.solr, /abc/);
      // What the grammar does not take never reaches Solr.
      for (const fq of ['price:[10 TO 50', 'price:[10 50]', 'brand:Acme OR brand:Bolt', 'price:[1 TO "5\\"]'])
        assert.equal((await query({ q: '', fq }, 400)).body.code, 'invalid-parameter', fq);
    });
  });
}
