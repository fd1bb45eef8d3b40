// `GET /api/searchCluster/{id}/systemInfo?nodeName=&all=` as Fusion's Search Cluster API
// documents it, against a real ZooKeeper and real HTTP servers playing Solr nodes.
import assert from 'node:assert/strict';
import { after, before, describe, type TestContext, test } from 'node:test';
import { call } from '../helpers/api.js';
import { build, contractTest, engines, skipReason } from '../helpers/app.js';
import { documentedAnswer } from '../helpers/documented-answer.js';
import { type FakeSolr, type FakeSolrOptions, startFakeSolr } from '../helpers/fake-solr.js';
import { seedSolrCloud } from '../helpers/solr-cloud-layout.js';
import { freePort, startZooKeeper, type ZooKeeperServer, zooKeeperSkipReason } from '../helpers/zookeeper.js';

const COMMON_FIELDS = ['timestamp', 'status', 'error', 'message', 'path', 'code'];

async function solrNode(t: TestContext, options?: FakeSolrOptions): Promise<FakeSolr> {
  const solr = await startFakeSolr(options);
  t.after(() => solr.close());
  return solr;
}

function assertCommonBody(body: Record<string, unknown>, status: number): void {
  for (const field of COMMON_FIELDS) assert.ok(field in body, `no ${field} in ${JSON.stringify(body)}`);
  assert.equal(body.status, status);
}

for (const engine of engines) {
  const skip = zooKeeperSkipReason() ?? (await skipReason(engine));
  describe(`the system information of a search cluster's Solr nodes on ${engine}`, { skip }, () => {
    const contract = contractTest(engine);
    let zk: ZooKeeperServer;
    let chroots = 0;
    const chroot = () => `/sysinfo-${engine}-${++chroots}`;
    before(async () => {
      zk = await startZooKeeper();
    });
    after(async () => {
      await zk?.stop();
    });

    contract(
      'answers one node, the named node, or every live node by name, as Fusion documents',
      async (t) => {
        const { app } = await build(t, engine);
        const first = await solrNode(t);
        const second = await solrNode(t);
        const root = chroot();
        await seedSolrCloud(zk.connectString, { chroot: root, liveNodes: [first.nodeName, second.nodeName] });
        const created = await call(app, 'POST', '/api/searchCluster', {
          id: 'prod',
          connectString: `${zk.connectString}${root}`,
        });
        assert.equal(created.status, 200, JSON.stringify(created.body));
        const [lower, higher] = [first, second].sort((a, b) => (a.nodeName < b.nodeName ? -1 : 1));

        const one = await call(app, 'GET', '/api/searchCluster/prod/systemInfo');
        assert.equal(one.status, 200, JSON.stringify(one.body));
        assert.deepEqual(one.body, lower!.systemInfo);

        const named = await call(
          app,
          'GET',
          `/api/searchCluster/prod/systemInfo?nodeName=${higher!.nodeName}`,
        );
        assert.equal(named.status, 200, JSON.stringify(named.body));
        assert.deepEqual(named.body, higher!.systemInfo);

        const all = await call(app, 'GET', '/api/searchCluster/prod/systemInfo?all=true');
        assert.equal(all.status, 200, JSON.stringify(all.body));
        assert.deepEqual(all.body, {
          [first.nodeName]: first.systemInfo,
          [second.nodeName]: second.systemInfo,
        });

        const notAll = await call(app, 'GET', '/api/searchCluster/prod/systemInfo?all=false');
        assert.deepEqual(notAll.body, lower!.systemInfo);

        const matchesDocument = await documentedAnswer(app, '/api/searchCluster/{id}/systemInfo');
        for (const answer of [one, named, all]) matchesDocument(answer.body);
      },
    );

    contract('answers 404 in the common body for a node that is not live', async (t) => {
      const { app } = await build(t, engine);
      const solr = await solrNode(t);
      const root = chroot();
      await seedSolrCloud(zk.connectString, { chroot: root, liveNodes: [solr.nodeName] });
      await call(app, 'POST', '/api/searchCluster', {
        id: 'prod',
        connectString: `${zk.connectString}${root}`,
      });
      const answer = await call(
        app,
        'GET',
        '/api/searchCluster/prod/systemInfo?nodeName=10.0.1.11:7574_solr',
      );
      assert.equal(answer.status, 404);
      assertCommonBody(answer.body, 404);
      assert.equal(answer.body.code, 'not-found');
      assert.equal(
        answer.body.message,
        `no live Solr node 10.0.1.11:7574_solr in search cluster prod (live: ${solr.nodeName})`,
      );
      assert.equal(solr.authorizations.length, 0, 'no node was asked');
    });

    contract('refuses nodeName together with all=true', async (t) => {
      const { app } = await build(t, engine);
      await call(app, 'POST', '/api/searchCluster', { id: 'prod', connectString: `${zk.connectString}/x` });
      const answer = await call(app, 'GET', '/api/searchCluster/prod/systemInfo?nodeName=a:1_solr&all=true');
      assert.equal(answer.status, 400);
      assertCommonBody(answer.body, 400);
      assert.equal(answer.body.code, 'invalid-parameter');
      assert.deepEqual(
        answer.body.errors.map((e: { field: string }) => e.field),
        ['all'],
      );
    });

    contract(
      'answers an unreachable cluster as /nodes and /status do, within zkConnectTimeout',
      async (t) => {
        const { app } = await build(t, engine);
        const port = await freePort();
        await call(app, 'POST', '/api/searchCluster', {
          id: 'nowhere',
          connectString: `127.0.0.1:${port}`,
          zkConnectTimeout: 300,
        });
        const nodes = await call(app, 'GET', '/api/searchCluster/nowhere/nodes');
        for (const query of ['', '?all=true', '?nodeName=127.0.0.1:8983_solr']) {
          const started = performance.now();
          const answer = await call(app, 'GET', `/api/searchCluster/nowhere/systemInfo${query}`);
          assert.ok(performance.now() - started < 1300, 'bounded by zkConnectTimeout');
          assert.equal(answer.status, 400, query);
          assertCommonBody(answer.body, 400);
          assert.equal(answer.body.code, nodes.body.code);
          assert.equal(answer.body.code, 'cluster-unreachable');
          assert.deepEqual(
            answer.body.details.steps.map((s: { step: string; ok: boolean }) => [s.step, s.ok]),
            [['zookeeper-connect', false]],
          );
        }
      },
    );

    contract(
      'fails all=true naming every live node that did not answer, within zkConnectTimeout',
      async (t) => {
        const { app } = await build(t, engine);
        const solr = await solrNode(t);
        const silent = await solrNode(t, { behaviour: 'silent' });
        const deadPort = await freePort();
        const dead = `127.0.0.1:${deadPort}_solr`;
        const root = chroot();
        await seedSolrCloud(zk.connectString, {
          chroot: root,
          liveNodes: [solr.nodeName, silent.nodeName, dead],
        });
        await call(app, 'POST', '/api/searchCluster', {
          id: 'partial',
          connectString: `${zk.connectString}${root}`,
          zkConnectTimeout: 1000,
        });
        const started = performance.now();
        const answer = await call(app, 'GET', '/api/searchCluster/partial/systemInfo?all=true');
        assert.ok(performance.now() - started < 2000, 'bounded by zkConnectTimeout');
        assert.equal(answer.status, 400);
        assert.equal(answer.body.code, 'cluster-unreachable');
        assert.match(answer.body.message, /2 of the 3 live Solr nodes gave no system information/);
        assert.ok(answer.body.message.includes(dead), answer.body.message);
        assert.ok(answer.body.message.includes(silent.nodeName), answer.body.message);
        const last = answer.body.details.steps.at(-1);
        assert.deepEqual([last.step, last.ok], ['solr-node', false]);
        // The node that answers is still there for one node, or by its name.
        const named = await call(
          app,
          'GET',
          `/api/searchCluster/partial/systemInfo?nodeName=${solr.nodeName}`,
        );
        assert.deepEqual(named.body, solr.systemInfo);
      },
    );

    test('reaches a cluster only through its app, and answers Kerberos as not supported', async (t) => {
      const { app } = await build(t, engine);
      const solr = await solrNode(t);
      await call(app, 'POST', '/api/apps/shop/searchCluster', {
        id: 'shop-solr',
        cloud: false,
        connectString: solr.baseUrl,
      });
      assert.equal((await call(app, 'GET', '/api/apps/shop/searchCluster/shop-solr/systemInfo')).status, 200);
      assert.equal((await call(app, 'GET', '/api/apps/blog/searchCluster/shop-solr/systemInfo')).status, 404);
      assert.equal((await call(app, 'GET', '/api/searchCluster/missing/systemInfo')).status, 404);
      await call(app, 'POST', '/api/searchCluster', {
        id: 'kdc',
        connectString: `${zk.connectString}/solr`,
        authConfig: { authType: 'KERBEROS', principal: 'searchdeck@EXAMPLE.COM', keyTab: 'a2V5dGFi' },
      });
      const kerberos = await call(app, 'GET', '/api/searchCluster/kdc/systemInfo');
      assert.equal(kerberos.status, 400);
      assert.equal(kerberos.body.code, 'not-supported');
    });
  });
}
