import assert from 'node:assert/strict';
import { after, before, describe, type TestContext, test } from 'node:test';
import zookeeper from 'node-zookeeper-client';
import type { RewriteSource } from '../../src/evaluation/rewrite-source.js';
import type { LiveRewrite } from '../../src/rewrites/rewrite.js';
import { call } from '../helpers/api.js';
import { adminAuth, build, contractTest, engines, skipReason } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';
import { seedSolrCloud } from '../helpers/solr-cloud-layout.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';
import { startZooKeeper, type ZooKeeperServer, zooKeeperSkipReason } from '../helpers/zookeeper.js';
import { publishedRule, studioWithToken } from '../rules/api.js';
import { ATTACKS } from './attacks.js';
import { type SelectSolr, startSelectSolr } from './select-solr.js';

const APP = 'shop';
let chroots = 0;

const skips = new Map(await Promise.all(engines.map(async (e) => [e, await skipReason(e)] as const)));

describe('Query endpoint', { skip: zooKeeperSkipReason() }, () => {
  // One ZooKeeper for the file: a start costs a JVM's second or two. Its ticks of 500 ms let it
  // grant sessions as short as one second, which the expiry test needs and the others never notice.
  let zk: ZooKeeperServer;
  before(async () => {
    zk = await startZooKeeper({ tickTimeMs: 500 });
  });
  after(async () => {
    await zk?.stop();
  });

  for (const engine of engines) {
    describe(`on ${engine}`, { skip: skips.get(engine) }, () => {
      const contract = contractTest(engine);

      /** Two Solr nodes registered in a fresh chroot, a cluster over them, a profile and a key. */
      async function setUp(
        t: TestContext,
        options: {
          rewrites?: RewriteSource;
          profile?: Record<string, unknown>;
          cluster?: Record<string, unknown>;
          zk?: Pick<ZooKeeperServer, 'connectString'>;
          nodes?: number;
        } = {},
      ) {
        const ensemble = options.zk ?? zk;
        const nodes: SelectSolr[] = [];
        for (let i = 0; i < (options.nodes ?? 2); i++) nodes.push(await startSelectSolr());
        t.after(() => Promise.all(nodes.map((node) => node.close())));
        const chroot = `/q${engine}${chroots++}`;
        await seedSolrCloud(ensemble.connectString, {
          chroot,
          liveNodes: nodes.map((n) => n.nodeName),
          collections: ['products'],
        });
        const { app } = await build(t, engine, options.rewrites ? { rewrites: options.rewrites } : {});
        const cluster = await call(app, 'POST', `/api/apps/${APP}/searchCluster`, {
          id: 'solr',
          connectString: `${ensemble.connectString}${chroot}`,
          zkConnectTimeout: 5000,
          ...options.cluster,
        });
        assert.equal(cluster.status, 200, JSON.stringify(cluster.body));
        const access = await studioWithToken(app, 'studio1');
        const profile = await call(app, 'POST', `/api/apps/${APP}/query-profiles`, {
          id: 'web',
          searchCluster: 'solr',
          collection: 'products',
          studio: 'studio1',
          defaults: { rows: 10, defType: 'edismax', qf: 'name^2 description', fl: 'id,name' },
          allowedParams: ['rows', 'start', 'fq', 'sort'],
          ...options.profile,
        });
        assert.equal(profile.status, 200, JSON.stringify(profile.body));
        const key = await call(app, 'POST', `/api/apps/${APP}/query-profiles/web/keys`);
        assert.equal(key.status, 200);
        const query = (search: string, auth = `Bearer ${key.body.key}`) =>
          call(app, 'GET', `/api/apps/${APP}/query/web?${search}`, undefined, auth);
        return { app, nodes, chroot, access, key: key.body.key as string, query };
      }

      const allReceived = (nodes: SelectSolr[]) => nodes.flatMap((node) => node.received);

      test('profiles: CRUD, links, and a cluster in use cannot be deleted', async (t) => {
        const { app } = await setUp(t);
        const read = await call(app, 'GET', `/api/apps/${APP}/query-profiles/web`);
        assert.equal(read.status, 200);
        assert.equal(read.body.logSearches, true);
        assert.equal(read.body.timeoutMs, 5000);
        assert.deepEqual(
          (await call(app, 'GET', `/api/apps/${APP}/query-profiles`)).body.map((p: { id: string }) => p.id),
          ['web'],
        );
        assert.equal((await call(app, 'GET', '/api/apps/other/query-profiles/web')).status, 404);
        const links = await call(
          app,
          'GET',
          `/api/links?subject=${encodeURIComponent(`query-profile:${APP}/web`)}&linkType=dependsOn`,
        );
        assert.deepEqual(links.body.map((l: { object: string }) => l.object).sort(), [
          'search-cluster:solr',
          'studio:studio1',
        ]);
        const refused = await call(app, 'DELETE', `/api/apps/${APP}/searchCluster/solr`);
        assert.equal(refused.status, 409);
        assert.match(refused.body.message, /query-profile:shop\/web/);
        const bad = await call(app, 'PUT', `/api/apps/${APP}/query-profiles/web`, {
          searchCluster: 'nope',
          collection: 'products',
          allowedParams: ['qt'],
        });
        assert.equal(bad.status, 400);
        assert.deepEqual(bad.body.errors.map((e: { field: string }) => e.field).sort(), [
          'allowedParams',
          'searchCluster',
        ]);
        // The fields the console's product cards show are kept as given; a name Solr would not
        // take as a field, or a member the profile does not know, is refused naming it.
        const display = { title: 'name', image: 'image_url', price: 'sale_price' };
        const withDisplay = await call(app, 'PUT', `/api/apps/${APP}/query-profiles/web`, {
          searchCluster: 'solr',
          collection: 'products',
          display,
        });
        assert.equal(withDisplay.status, 200, JSON.stringify(withDisplay.body));
        assert.deepEqual(
          (await call(app, 'GET', `/api/apps/${APP}/query-profiles/web`)).body.display,
          display,
        );
        for (const [wrong, field] of [
          [{ title: 'name()' }, 'display.title'],
          [{ colour: 'colour' }, 'display'],
        ] as const) {
          const refusedDisplay = await call(app, 'PUT', `/api/apps/${APP}/query-profiles/web`, {
            searchCluster: 'solr',
            collection: 'products',
            display: wrong,
          });
          assert.equal(refusedDisplay.status, 400, JSON.stringify(wrong));
          assert.ok(
            refusedDisplay.body.errors.some((e: { field: string }) => e.field.startsWith(field)),
            JSON.stringify(refusedDisplay.body),
          );
        }
        assert.equal((await call(app, 'DELETE', `/api/apps/${APP}/query-profiles/web`)).status, 204);
        assert.equal((await call(app, 'DELETE', `/api/apps/${APP}/searchCluster/solr`)).status, 204);
      });

      test('the parameters Solr receives for each rule kind and rewrite, and the fusion object', async (t) => {
        const rewrites: LiveRewrite[] = [
          { id: 'rw-cheap', type: 'removeWords', words: ['cheap'] },
          { id: 'rw-typo', type: 'misspelling', misspelling: 'lapotp', correction: 'laptop' },
          { id: 'rw-syn', type: 'synonym', input: 'laptop', synonyms: ['notebook'] },
          { id: 'rw-phrase', type: 'phrase', phrase: 'laptop bags', boost: 2 },
          { id: 'rw-head', type: 'headTail', query: 'laptop bags for work', head: 'laptop bags' },
        ];
        const { app, nodes, access, query } = await setUp(t, {
          rewrites: { live: async () => rewrites, staging: async () => [] },
        });
        const laptops = { conditions: { queries: ['laptop'], queryMatch: 'contains' } };
        await publishedRule(app, access, {
          type: 'blockList',
          name: 'Block',
          fieldName: 'id',
          fieldValues: ['P3'],
          ...laptops,
        });
        await publishedRule(app, access, {
          type: 'boostList',
          name: 'Boost',
          fieldName: 'brand',
          fieldValues: ['acme'],
          boost: 10,
          ...laptops,
        });
        await publishedRule(app, access, {
          type: 'buryList',
          name: 'Bury',
          fieldName: 'condition',
          fieldValues: ['used'],
          boost: 2,
          ...laptops,
        });
        await publishedRule(app, access, {
          type: 'pinned',
          name: 'Pin',
          pinnedValues: [{ value: 'P9', position: 1 }],
          ...laptops,
        });
        await publishedRule(app, access, {
          type: 'redirect',
          name: 'Go',
          url: 'https://shop.example/laptops',
          ...laptops,
        });
        await publishedRule(app, access, {
          type: 'banner',
          name: 'Ad',
          bannerUrl: 'https://b.example/l.png',
          ...laptops,
        });
        const answer = await query('q=cheap%20lapotp&rows=5&segment=vip');
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        const sent = allReceived(nodes);
        assert.equal(sent.length, 1);
        const params = sent[0]!;
        assert.equal(params.get('q'), '(laptop OR "notebook")');
        assert.deepEqual(params.getAll('fq'), ['-id:("P3")']);
        assert.deepEqual(params.getAll('bq'), ['brand:"acme"^10', '(*:* -condition:"used")^2']);
        assert.equal(params.get('elevateIds'), 'P9');
        assert.equal(params.get('forceElevation'), 'true', 'pins first whatever the sort');
        assert.equal(params.get('excludeIds'), 'P3');
        assert.equal(params.get('rows'), '5');
        assert.equal(params.get('defType'), 'edismax');
        assert.equal(params.get('qf'), 'name^2 description');
        assert.equal(params.get('wt'), 'json');
        assert.equal(params.get('segment'), null);
        assert.deepEqual(answer.body.response.docs[0].id, 'P1');
        assert.equal(answer.body.responseHeader.status, 0);
        const { fusion } = answer.body;
        assert.deepEqual(fusion['landing-pages'], ['https://shop.example/laptops']);
        assert.equal(fusion.redirect, 'https://shop.example/laptops');
        assert.deepEqual(fusion.banners, [{ url: 'https://b.example/l.png', zone: 'top' }]);
        assert.equal(fusion.rewrittenQuery, 'laptop');
        assert.deepEqual(
          fusion.rewrites.map((r: { id: string }) => r.id),
          ['rw-cheap', 'rw-typo', 'rw-syn'],
        );
        assert.deepEqual(fusion.rules.map((r: { name: string }) => r.name).sort(), [
          'Ad',
          'Block',
          'Boost',
          'Bury',
          'Go',
          'Pin',
        ]);
        const phrased = await query('q=lapotp%20bags%20for%20work');
        assert.equal(phrased.status, 200);
        assert.equal(phrased.body.fusion.rewrittenQuery, 'laptop bags');
        assert.deepEqual(
          phrased.body.fusion.rewrites.map((r: { id: string }) => r.id),
          ['rw-typo', 'rw-phrase', 'rw-head', 'rw-syn'],
        );
        const second = allReceived(nodes).find((received) => received !== params)!;
        // Solr gets exactly what evaluation makes of the query.
        const evaluated = await call(
          app,
          'GET',
          '/api/studios/studio1/evaluate?q=lapotp%20bags%20for%20work',
        );
        assert.equal(second.get('q'), evaluated.body.solr.q);
        assert.deepEqual(second.getAll('bq'), evaluated.body.solr.bq);
        assert.deepEqual(second.getAll('fq'), evaluated.body.solr.fq);
        assert.match(second.get('q')!, /notebook/);
        const metrics = await app.inject({ url: '/metrics', headers: { authorization: adminAuth } });
        assert.match(metrics.body, /searchdeck_query_requests_total\{profile="shop\/web",outcome="ok"\} 2/);
        assert.match(metrics.body, /searchdeck_query_rules_fired_total\{profile="shop\/web"\} 12/);
        assert.match(metrics.body, /searchdeck_query_solr_duration_seconds_count\{profile="shop\/web"\} 2/);
      });

      contract(
        'drops what the profile does not allow: qt, stream.body, shards, collection; POST form works',
        async (t) => {
          const { app, nodes, key } = await setUp(t);
          const form = [
            'q=shoes',
            'qt=/update',
            'stream.body=<delete><query>*:*</query></delete>',
            'shards=evil:8983/solr/x',
            'collection=other',
            'fq=brand:acme',
            'sort=price asc',
            'wt=xml',
            'bq=id:P1^1000',
            'facet=true',
          ]
            .map((pair) =>
              pair
                .split('=')
                .map((p, i) => (i === 0 ? p : encodeURIComponent(p)))
                .join('='),
            )
            .join('&');
          const response = await app.inject({
            method: 'POST',
            url: `/api/apps/${APP}/query/web`,
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-www-form-urlencoded' },
            payload: form.replace(/%3D/g, '='),
          });
          assert.equal(response.statusCode, 200, response.body);
          const json = await app.inject({
            method: 'POST',
            url: `/api/apps/${APP}/query/web`,
            headers: { authorization: `Bearer ${key}` },
            payload: { q: 'shoes' },
          });
          assert.equal(json.statusCode, 415, json.body);
          const params = allReceived(nodes)[0]!;
          assert.deepEqual([...new Set(params.keys())].sort(), [
            'defType',
            'fl',
            'fq',
            'q',
            'qf',
            'rows',
            'sort',
            'wt',
          ]);
          // The shopper's filter as searchdeck writes it anew: its value quoted.
          assert.deepEqual(params.getAll('fq'), ['brand:"acme"']);
          assert.equal(params.get('wt'), 'json');
          assert.equal(params.get('q'), 'shoes');
          assert.deepEqual(response.json().fusion.droppedParams.sort(), [
            'bq',
            'collection',
            'facet',
            'qt',
            'shards',
            'stream.body',
            'wt',
          ]);
        },
      );

      contract('a profile cannot allow a parameter that names cores, in any case', async (t) => {
        const { app } = await setUp(t);
        for (const name of [
          'collection',
          'Collection',
          'shards.tolerant',
          'fromIndex',
          'stream.url',
          'defType',
        ]) {
          for (const [method, url, extra] of [
            ['PUT', `/api/apps/${APP}/query-profiles/web`, {}],
            ['POST', `/api/apps/${APP}/query-profiles`, { id: 'other' }],
          ] as const) {
            const refused = await call(app, method, url, {
              ...extra,
              searchCluster: 'solr',
              collection: 'products',
              allowedParams: ['rows', name],
            });
            assert.equal(refused.status, 400, `${method} ${name}`);
            assert.equal(refused.body.code, 'invalid-body');
            assert.deepEqual(
              refused.body.errors.map((e: { field: string }) => e.field),
              ['allowedParams'],
            );
          }
        }
        const magic = await call(app, 'PUT', `/api/apps/${APP}/query-profiles/web`, {
          searchCluster: 'solr',
          collection: 'products',
          sortFields: ['price', '_query_'],
          returnFields: ['_val_'],
        });
        assert.equal(magic.status, 400);
        assert.deepEqual(
          magic.body.errors.map((e: { field: string }) => e.field),
          ['sortFields', 'returnFields'],
        );
        assert.deepEqual((await call(app, 'GET', `/api/apps/${APP}/query-profiles/web`)).body.allowedParams, [
          'rows',
          'start',
          'fq',
          'sort',
        ]);
      });

      contract(
        'values Solr would run are answered 400 naming the parameter; safe forms are written anew',
        async (t) => {
          const { app, nodes, key, query } = await setUp(t, {
            profile: {
              allowedParams: ['rows', 'fq', 'sort', 'fl'],
              sortFields: ['price'],
              returnFields: ['id', 'name'],
            },
          });
          for (const [name, value] of ATTACKS) {
            for (const answer of [
              await query(`q=shoes&${name}=${encodeURIComponent(value)}`),
              await app
                .inject({
                  method: 'POST',
                  url: `/api/apps/${APP}/query/web`,
                  headers: {
                    authorization: `Bearer ${key}`,
                    'content-type': 'application/x-www-form-urlencoded',
                  },
                  payload: new URLSearchParams({ q: 'shoes', [name]: value }).toString(),
                })
                .then((r) => ({ status: r.statusCode, body: r.json() })),
            ]) {
              assert.equal(answer.status, 400, `${name}=${value}`);
              assert.equal(answer.body.code, 'invalid-parameter');
              assert.deepEqual(
                answer.body.errors.map((e: { field: string }) => e.field),
                [name],
              );
            }
          }
          assert.equal(allReceived(nodes).length, 0, 'nothing reached Solr');
          const sorted = await query('q=shoes&sort=cost%20asc');
          assert.equal(sorted.status, 400);
          assert.match(sorted.body.message, /sortFields/);
          const ok = await query(
            `q=shoes&fq=${encodeURIComponent('price:[10 TO *]')}&fq=${encodeURIComponent('-brand:(acme OR "big co")')}&sort=${encodeURIComponent('price DESC')}&fl=id%20name`,
          );
          assert.equal(ok.status, 200, JSON.stringify(ok.body));
          const params = allReceived(nodes)[0]!;
          assert.deepEqual(params.getAll('fq'), ['price:["10" TO *]', '-brand:("acme" OR "big co")']);
          assert.equal(params.get('sort'), 'price desc');
          assert.equal(params.get('fl'), 'id,name');
        },
      );

      contract(
        'a failing node → the other node; all down → 502; Solr refusing → 400 with its message; silence → 504',
        async (t) => {
          const { nodes, query } = await setUp(t, { profile: { timeoutMs: 300 } });
          nodes[0]!.mode = 'down';
          for (let i = 0; i < 4; i++) assert.equal((await query('q=a')).status, 200);
          assert.equal(nodes[1]!.received.length, 4, 'every query was answered by the healthy node');
          nodes[1]!.mode = 'down';
          const down = await query('q=a');
          assert.equal(down.status, 502);
          assert.equal(down.body.code, 'solr-failed');
          assert.match(down.body.message, /Solr node 127\.0\.0\.1:\d+_solr answered HTTP 503/);
          assert.equal(down.body.details.status, 503);
          nodes[0]!.mode = 'error';
          nodes[1]!.mode = 'error';
          const refused = await query('q=a');
          assert.equal(refused.status, 400);
          assert.equal(refused.body.code, 'solr-rejected');
          assert.equal(refused.body.details.solr, 'undefined field nope');
          assert.doesNotMatch(JSON.stringify(refused.body), /SolrException/);
          nodes[0]!.mode = 'silent';
          nodes[1]!.mode = 'silent';
          const silent = await query('q=a');
          assert.equal(silent.status, 504);
          assert.equal(silent.body.code, 'solr-timeout');
          assert.match(silent.body.details.node, /_solr$/);
        },
      );

      contract("a query is tried on up to three nodes; only Solr's 400 is the request's fault", async (t) => {
        const { nodes, query } = await setUp(t, { nodes: 4 });
        // A node relays 401 or 503 while the node it forwards to stops: the next nodes are tried.
        nodes[0]!.mode = 'unauthorized';
        nodes[1]!.mode = 'unauthorized';
        nodes[2]!.mode = 'down';
        const statuses: number[] = [];
        for (let i = 0; i < 4; i++) statuses.push((await query('q=a')).status);
        // One query per starting node of the round: only the one starting just past the answering
        // node meets three failing nodes, whatever the order of the live nodes.
        assert.deepEqual(statuses.sort(), [200, 200, 200, 502]);
        assert.equal(nodes[3]!.received.length, 3);
        assert.equal(
          nodes.reduce((sum, n) => sum + n.received.length, 0),
          1 + 2 + 3 + 3,
        );
        for (const node of nodes) {
          node.mode = 'error';
          node.received.length = 0;
        }
        const refused = await query('q=a');
        assert.equal(refused.status, 400);
        assert.equal(refused.body.details.status, 400);
        assert.equal(
          nodes.reduce((sum, n) => sum + n.received.length, 0),
          1,
          "Solr's 400 is not tried on another node",
        );
      });

      contract('a node leaving /live_nodes stops receiving queries within a second', async (t) => {
        const { app, nodes, chroot, query } = await setUp(t);
        await query('q=a');
        await query('q=a');
        assert.deepEqual(
          nodes.map((n) => n.received.length),
          [1, 1],
          'round-robin over the two nodes',
        );
        await removeZNode(zk.connectString, `${chroot}/live_nodes/${nodes[0]!.nodeName}`);
        // The watch hears of it: the endpoint's list of the cluster's nodes holds the other one only.
        await eventually(async () => (await app.parts.query.nodesOf('solr')).nodes.nodes().length === 1, {
          within: 1000,
          message: 'the node that left is still listed',
        });
        for (let i = 0; i < 4; i++) assert.equal((await query('q=a')).status, 200);
        assert.deepEqual(
          nodes.map((n) => n.received.length),
          [1, 5],
        );
      });

      contract(
        'an expired ZooKeeper session is reopened: queries are served throughout, then follow the new list',
        async (t) => {
          // Sessions of one second (two ticks), reached through a proxy that can cut them off.
          const proxy = await startTcpProxy(zk.connectString);
          t.after(() => proxy.close());
          const earlier = await zk.sessions();
          const { nodes, chroot, query } = await setUp(t, {
            zk: { connectString: proxy.address },
            cluster: { zkClientTimeout: 1000 },
          });
          await query('q=a');
          await query('q=a');
          assert.deepEqual(
            nodes.map((n) => n.received.length),
            [1, 1],
          );
          // The sessions this test opened through the proxy and still holds: the endpoint's.
          const opened = [...(await zk.sessions())].filter((id) => !earlier.has(id));
          assert.ok(opened.length > 0, 'the endpoint holds a session');

          await proxy.cut();
          // Past the session timeout ZooKeeper expires the session; meanwhile a node leaves.
          await removeZNode(zk.connectString, `${chroot}/live_nodes/${nodes[0]!.nodeName}`);
          // The server's own list says when the session expired (not just paused): the endpoint
          // cannot tell while the proxy is cut.
          await eventually(
            async () => {
              const held = await zk.sessions();
              return opened.every((id) => !held.has(id));
            },
            { within: 10_000, every: 100, message: 'ZooKeeper never expired the cut-off session' },
          );
          for (let i = 0; i < 2; i++) assert.equal((await query('q=a')).status, 200, 'the last list serves');
          assert.deepEqual(
            nodes.map((n) => n.received.length),
            [2, 2],
          );
          await proxy.resume();

          // Reconnecting, the watch hears its session expired and opens a new one: four queries in a
          // row then pass the node that left by. Every query meanwhile is answered.
          const statuses: number[] = [];
          await eventually(
            async () => {
              for (let inARow = 0; inARow < 4; inARow++) {
                const before = nodes[0]!.received.length;
                statuses.push((await query('q=a')).status);
                if (nodes[0]!.received.length !== before) return false;
              }
              return true;
            },
            { within: 15_000, every: 100, message: 'a new session did not follow /live_nodes' },
          );
          for (const status of statuses) assert.equal(status, 200);
          const settled = nodes[0]!.received.length;
          for (let i = 0; i < 4; i++) assert.equal((await query('q=a')).status, 200);
          assert.equal(nodes[0]!.received.length, settled, 'the node that left gets nothing');
        },
      );

      test('search logging reaches the top-searched job', async (t) => {
        const { app } = await build(t, engine, { tuning: { searchLogFlushMs: 20 } });
        const created = await app.inject({
          method: 'POST',
          url: '/api/typeahead/instances',
          headers: { authorization: adminAuth },
          payload: { name: 'Shop', minCount: 2 },
        });
        const instance = created.json().id as string;
        const solr = await startSelectSolr();
        t.after(() => solr.close());
        const cluster = await call(app, 'POST', `/api/apps/${APP}/searchCluster`, {
          id: 'one',
          cloud: false,
          connectString: solr.baseUrl,
        });
        assert.equal(cluster.status, 200, JSON.stringify(cluster.body));
        const profile = await call(app, 'POST', `/api/apps/${APP}/query-profiles`, {
          id: 'web',
          searchCluster: 'one',
          collection: 'products',
          typeahead: instance,
        });
        assert.equal(profile.status, 200, JSON.stringify(profile.body));
        for (const q of ['Kettle', 'kettle', 'kettle', 'toaster']) {
          assert.equal((await call(app, 'GET', `/api/apps/${APP}/query/web?q=${q}`)).status, 200);
        }
        // The batch is written every flush (20 ms here, a second by default): the job finds every
        // search once the batches holding them are written.
        await eventually(
          async () => {
            const refreshed = await call(app, 'POST', `/api/typeahead/instances/${instance}/refresh`);
            assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
            const terms = await call(app, 'GET', `/api/typeahead/instances/${instance}/terms`);
            assert.deepEqual(terms.body.topSearched, [{ term: 'kettle', count: 3 }]);
          },
          { within: 5000 },
        );
      });

      test('a search-only key reaches its profile query and nothing else; revoked, not even that', async (t) => {
        const { app, key, query } = await setUp(t);
        const bearer = `Bearer ${key}`;
        assert.equal((await query('q=a')).status, 200);
        assert.equal((await query('q=a', adminAuth)).status, 200, 'admin Basic works too');
        assert.equal((await query('q=a', 'Bearer sdq_0000000000000000_nope')).status, 401);
        assert.equal(
          (await call(app, 'GET', `/api/apps/${APP}/query-profiles`, undefined, bearer)).status,
          401,
        );
        assert.equal((await call(app, 'GET', '/api/searchCluster', undefined, bearer)).status, 401);
        assert.equal((await call(app, 'GET', '/em-rules', undefined, bearer)).status, 401);
        assert.equal((await call(app, 'GET', '/metrics', undefined, bearer)).status, 401);
        const other = await call(app, 'POST', `/api/apps/${APP}/query-profiles`, {
          id: 'other',
          searchCluster: 'solr',
          collection: 'products',
        });
        assert.equal(other.status, 200);
        assert.equal(
          (await call(app, 'GET', `/api/apps/${APP}/query/other?q=a`, undefined, bearer)).status,
          401,
        );
        assert.equal(
          (await call(app, 'GET', `/api/apps/other-app/query/web?q=a`, undefined, bearer)).status,
          401,
        );
        const keys = await call(app, 'GET', `/api/apps/${APP}/query-profiles/web/keys`);
        assert.equal(keys.body.length, 1);
        assert.equal(keys.body[0].key, undefined, 'the key is never shown again');
        assert.equal(
          (await call(app, 'DELETE', `/api/apps/${APP}/query-profiles/web/keys/${keys.body[0].id}`)).status,
          204,
        );
        assert.equal((await query('q=a')).status, 401);
      });
    });
  }
});

async function removeZNode(connectString: string, path: string): Promise<void> {
  const client = zookeeper.createClient(connectString, { spinDelay: 100 });
  await new Promise<void>((resolve) => {
    client.once('connected', () => resolve());
    client.connect();
  });
  await new Promise<void>((resolve, reject) =>
    client.remove(path, -1, (error) => (error ? reject(error) : resolve())),
  );
  client.close();
}
