import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import { checkConnectivity, listNodes } from '../../src/clusters/connectivity.js';
import { cloudSettings } from '../helpers/cluster-settings.js';
import { eventually } from '../helpers/eventually.js';
import { type FakeSolr, type FakeSolrOptions, startFakeSolr } from '../helpers/fake-solr.js';
import { silentServer } from '../helpers/silent-server.js';
import { seedSolrCloud } from '../helpers/solr-cloud-layout.js';
import { freePort, startZooKeeper, type ZooKeeperServer, zooKeeperSkipReason } from '../helpers/zookeeper.js';

const PASSWORD = 'Sup3r-s3cret-pa55';

describe('the connectivity check of a SolrCloud', { skip: zooKeeperSkipReason() }, () => {
  let zk: ZooKeeperServer;
  before(async () => {
    zk = await startZooKeeper();
  });
  after(async () => {
    await zk?.stop();
  });

  async function solrNode(t: TestContext, options?: FakeSolrOptions): Promise<FakeSolr> {
    const solr = await startFakeSolr(options);
    t.after(() => solr.close());
    return solr;
  }

  it('answers not-a-solr-cluster when no Solr node is live', async () => {
    await seedSolrCloud(zk.connectString, { chroot: '/empty', liveNodes: [] });

    const result = await checkConnectivity(cloudSettings(`${zk.connectString}/empty`));

    assert.equal(result.ok || result.code, 'not-a-solr-cluster');
    assert.match(result.ok ? '' : result.message, /no live Solr nodes/);
    assert.equal(result.steps.at(-1)?.step, 'live-nodes');
  });

  it('names the node that refused the credentials first, then the nodes that did not answer before it', async (t) => {
    // A node registered live that does not listen: a real cluster's stopped node leaves live_nodes.
    const solr = await solrNode(t, { credentials: { username: 'searchdeck', password: 'the-right-one' } });
    const later = await solrNode(t, { credentials: { username: 'searchdeck', password: 'the-right-one' } });
    const [first, second] = [solr, later].sort((a, b) => (a.nodeName < b.nodeName ? -1 : 1));
    // A loopback address that sorts before 127.0.0.1:…, where nothing listens.
    const deadPort = await freePort();
    const dead = `127.0.0.10:${deadPort}_solr`;
    await seedSolrCloud(zk.connectString, {
      chroot: '/guarded',
      liveNodes: [dead, first!.nodeName, second!.nodeName],
    });
    const authConfig = { authType: 'BASIC' as const, username: 'searchdeck', password: PASSWORD };

    const result = await checkConnectivity(cloudSettings(`${zk.connectString}/guarded`, { authConfig }));

    assert.equal(result.ok || result.code, 'cluster-unreachable');
    assert.equal(
      result.ok ? '' : result.message,
      `${first!.baseUrl}: Solr rejected the credentials (HTTP 401) of user 'searchdeck': check the username and password (1 more live node(s) not asked: they share its security setup); before it, 1 node(s) did not answer: http://127.0.0.10:${deadPort}/solr: nothing is listening at 127.0.0.10:${deadPort} (is Solr running there?)`,
    );
    assert.equal(first!.authorizations.length, 1);
    assert.equal(second!.authorizations.length, 0, 'rejected credentials end the search');
    assert.ok(!JSON.stringify(result).includes(PASSWORD));
  });

  it('tries the next live node when one does not answer', async (t) => {
    const solr = await solrNode(t);
    const deadNode = `127.0.0.1:${await freePort()}_solr`;
    // Sorted, the dead node (a lower name) is asked first.
    const [first, second] = [deadNode, solr.nodeName].sort();
    await seedSolrCloud(zk.connectString, { chroot: '/mixed', liveNodes: [first ?? '', second ?? ''] });

    const result = await checkConnectivity(cloudSettings(`${zk.connectString}/mixed`));

    assert.equal(result.ok, true, JSON.stringify(result));
  });

  it('builds node base URLs with the urlScheme of clusterprops.json', async (t) => {
    const solr = await solrNode(t);
    await seedSolrCloud(zk.connectString, { chroot: '/tls', liveNodes: [solr.nodeName], urlScheme: 'https' });
    const settings = cloudSettings(`${zk.connectString}/tls`);

    const nodes = await listNodes(settings);
    const result = await checkConnectivity(settings);

    assert.deepEqual(nodes, {
      ok: true,
      nodes: [{ name: solr.nodeName, baseUrl: `https://127.0.0.1:${solr.port}/solr`, state: 'live' }],
    });
    // The fake node speaks plain HTTP, so a TLS failure proves the check really used https.
    assert.equal(result.ok || result.code, 'cluster-unreachable');
    assert.match(
      result.ok ? '' : result.message,
      new RegExp(`https://127\\.0\\.0\\.1:${solr.port}/solr: TLS`),
    );
  });

  it('lists the live nodes in name order with their base URLs', async () => {
    const liveNodes = ['10.0.0.2:8983_solr', '10.0.0.1:8983_solr', 'solr-3.example:7574_solr%2Fcustom'];
    await seedSolrCloud(zk.connectString, { chroot: '/three', liveNodes });

    const result = await listNodes(cloudSettings(`${zk.connectString}/three`));

    assert.deepEqual(result, {
      ok: true,
      nodes: [
        { name: '10.0.0.1:8983_solr', baseUrl: 'http://10.0.0.1:8983/solr', state: 'live' },
        { name: '10.0.0.2:8983_solr', baseUrl: 'http://10.0.0.2:8983/solr', state: 'live' },
        {
          name: 'solr-3.example:7574_solr%2Fcustom',
          baseUrl: 'http://solr-3.example:7574/solr/custom',
          state: 'live',
        },
      ],
    });
  });

  it('lists no nodes, without failing, when none is live', async () => {
    await seedSolrCloud(zk.connectString, { chroot: '/idle', liveNodes: [] });

    assert.deepEqual(await listNodes(cloudSettings(`${zk.connectString}/idle`)), { ok: true, nodes: [] });
  });
});

describe('the connectivity check of an unreachable ZooKeeper', () => {
  it('gives up on a port where nothing listens between zkConnectTimeout and one second later', async () => {
    const port = await freePort();
    const started = performance.now();

    const result = await checkConnectivity(
      cloudSettings(`127.0.0.1:${port}/solr`, { zkConnectTimeout: 1000 }),
    );

    const elapsed = performance.now() - started;
    assert.ok(elapsed >= 998 && elapsed <= 2000, `returned after ${Math.round(elapsed)} ms`);
    assert.equal(result.ok || result.code, 'cluster-unreachable');
    assert.match(
      result.ok ? '' : result.message,
      new RegExp(`could not connect to ZooKeeper at 127\\.0\\.0\\.1:${port}/solr within 1000 ms`),
    );
    assert.deepEqual(
      result.steps.map(({ step, ok }) => [step, ok]),
      [['zookeeper-connect', false]],
    );
  });

  it('gives up on a server that accepts connections but never answers, and closes the connection', async (t) => {
    const { port, server: silent } = await silentServer(t);
    const started = performance.now();

    const result = await checkConnectivity(cloudSettings(`127.0.0.1:${port}`, { zkConnectTimeout: 500 }));

    const elapsed = performance.now() - started;
    assert.ok(elapsed >= 498 && elapsed <= 1500, `returned after ${Math.round(elapsed)} ms`);
    assert.equal(result.ok || result.code, 'cluster-unreachable');
    // The server sees the client hang up a moment after the check answered.
    await eventually(
      async () => {
        const open = await new Promise<number>((resolve) =>
          silent.getConnections((_, count) => resolve(count)),
        );
        assert.equal(open, 0, 'the check left a connection open');
      },
      { within: 1000 },
    );
  });

  it('answers that Kerberos is not supported yet, without touching the network', async () => {
    const settings = cloudSettings('127.0.0.1:1/solr', {
      authConfig: { authType: 'KERBEROS', principal: 'searchdeck@EXAMPLE.COM', keyTab: 'a2V5dGFi' },
    });

    assert.deepEqual(await checkConnectivity(settings), {
      ok: false,
      code: 'not-supported',
      message: 'Kerberos connectivity checks are not supported yet',
      steps: [],
    });
  });
});
