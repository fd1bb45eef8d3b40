import assert from 'node:assert/strict';
import { after, before, describe, type TestContext, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { type Answer, call } from '../helpers/api.js';
import { adminAuth, build, contractTest, engines, skipReason } from '../helpers/app.js';
import { type FakeSolr, type FakeSolrOptions, startFakeSolr } from '../helpers/fake-solr.js';
import { captureLog } from '../helpers/log-capture.js';
import { seedSolrCloud } from '../helpers/solr-cloud-layout.js';
import { freePort, startZooKeeper, type ZooKeeperServer, zooKeeperSkipReason } from '../helpers/zookeeper.js';

const PASSWORD = 'Sup3r-s3cret-pa55';
const credentials = { username: 'searchdeck', password: PASSWORD };
const basicAuth = (password = PASSWORD) => ({ authType: 'BASIC', username: 'searchdeck', password });

async function solrNode(t: TestContext, options?: FakeSolrOptions): Promise<FakeSolr> {
  const solr = await startFakeSolr(options);
  t.after(() => solr.close());
  return solr;
}

const stepsOf = (answer: Answer) =>
  (answer.body.details?.steps ?? answer.body.steps).map((s: { step: string; ok: boolean }) => [s.step, s.ok]);

async function assertNotStored(app: FastifyInstance, id: string): Promise<void> {
  assert.equal((await call(app, 'GET', `/api/searchCluster/${id}`)).status, 404, `${id} was stored`);
}

for (const engine of engines) {
  const skip = zooKeeperSkipReason() ?? (await skipReason(engine));
  describe(`the search-cluster connectivity check through the API on ${engine}`, { skip }, () => {
    const contract = contractTest(engine);
    let zk: ZooKeeperServer;
    // Each test seeds its own chroot, so tests never see each other's nodes.
    let chroots = 0;
    const chroot = () => `/${engine}-${++chroots}`;
    before(async () => {
      zk = await startZooKeeper();
    });
    after(async () => {
      await zk?.stop();
    });

    contract('answers not-a-solr-cluster when no Solr node is live', async (t) => {
      const { app } = await build(t, engine);
      const root = chroot();
      await seedSolrCloud(zk.connectString, { chroot: root, liveNodes: [] });

      const answer = await call(app, 'POST', '/api/searchCluster?validate=true', {
        id: 'idle',
        connectString: `${zk.connectString}${root}`,
      });

      assert.equal(answer.body.code, 'not-a-solr-cluster');
      assert.match(answer.body.message, /check step live-nodes failed: no live Solr nodes/);
      assert.equal(stepsOf(answer).at(-1)[0], 'live-nodes');
      await assertNotStored(app, 'idle');
    });

    contract(
      'gives up on a port where nothing listens between zkConnectTimeout and one second later',
      async (t) => {
        const { app } = await build(t, engine);
        // The clock times the check, not the app's first start (routes compiled, indexes built).
        await app.ready();
        const port = await freePort();
        const started = performance.now();

        const answer = await call(app, 'POST', '/api/searchCluster?validate=true', {
          id: 'dead',
          connectString: `127.0.0.1:${port}/solr`,
          zkConnectTimeout: 1000,
        });

        const elapsed = performance.now() - started;
        assert.ok(elapsed >= 998 && elapsed <= 2000, `answered after ${Math.round(elapsed)} ms`);
        assert.equal(answer.status, 400);
        assert.equal(answer.body.code, 'cluster-unreachable');
        assert.match(
          answer.body.message,
          new RegExp(
            `check step zookeeper-connect failed: could not connect to ZooKeeper at 127\\.0\\.0\\.1:${port}/solr within 1000 ms`,
          ),
        );
        assert.deepEqual(stepsOf(answer), [['zookeeper-connect', false]]);
        await assertNotStored(app, 'dead');
      },
    );

    contract('answers cluster-unreachable for a standalone URL where nothing listens', async (t) => {
      const { app } = await build(t, engine);
      const port = await freePort();

      const down = await call(app, 'POST', '/api/searchCluster?validate=true', {
        id: 'gone',
        cloud: false,
        connectString: `http://127.0.0.1:${port}/solr`,
      });

      assert.equal(down.status, 400);
      assert.equal(down.body.code, 'cluster-unreachable');
      assert.match(down.body.message, new RegExp(`nothing is listening at 127\\.0\\.0\\.1:${port}`));
      assert.deepEqual(stepsOf(down), [['solr-node', false]]);
      await assertNotStored(app, 'gone');
    });

    test('validates when the body says validateCluster, on create and on replace', async (t) => {
      const { app } = await build(t, engine);
      const port = await freePort();
      const dead = `http://127.0.0.1:${port}/solr`;
      const solr = await solrNode(t);

      const refused = await call(app, 'POST', '/api/searchCluster', {
        id: 'strict',
        cloud: false,
        connectString: dead,
        validateCluster: true,
      });
      assert.equal(refused.status, 400);
      assert.equal(refused.body.code, 'cluster-unreachable');
      await assertNotStored(app, 'strict');

      const stored = { id: 'strict', cloud: false, connectString: solr.baseUrl, validateCluster: true };
      assert.equal((await call(app, 'PUT', '/api/searchCluster/strict', stored)).status, 200);
      const replaced = await call(app, 'PUT', '/api/searchCluster/strict', {
        ...stored,
        connectString: dead,
      });
      assert.equal(replaced.status, 400);
      assert.equal((await call(app, 'GET', '/api/searchCluster/strict')).body.connectString, solr.baseUrl);
    });

    test('checks with the stored password after GET and PUT back of the masked record', async (t) => {
      const { app } = await build(t, engine);
      const solr = await solrNode(t, { credentials });
      await call(app, 'POST', '/api/searchCluster', {
        id: 'kept',
        cloud: false,
        connectString: solr.baseUrl,
        authConfig: basicAuth(),
      });
      const read = (await call(app, 'GET', '/api/searchCluster/kept')).body;
      assert.equal(read.authConfig.password, '********');

      const written = await call(app, 'PUT', '/api/searchCluster/kept?validate=true', {
        ...read,
        bufferSize: 50,
      });

      assert.equal(written.status, 200, JSON.stringify(written.body));
      const expected = `Basic ${Buffer.from(`searchdeck:${PASSWORD}`).toString('base64')}`;
      assert.deepEqual(solr.authorizations, [expected]);
    });

    test('lists the live nodes of a cloud and the one node of a standalone cluster', async (t) => {
      const { app } = await build(t, engine);
      const solr = await solrNode(t);
      const root = chroot();
      await seedSolrCloud(zk.connectString, {
        chroot: root,
        liveNodes: [solr.nodeName, '10.0.0.9:8983_solr'],
      });
      await call(app, 'POST', '/api/searchCluster', {
        id: 'cloud',
        connectString: `${zk.connectString}${root}`,
      });
      await call(app, 'POST', '/api/searchCluster', {
        id: 'single',
        cloud: false,
        connectString: solr.baseUrl,
      });
      const port = await freePort();
      await call(app, 'POST', '/api/searchCluster', {
        id: 'nowhere',
        connectString: `127.0.0.1:${port}`,
        zkConnectTimeout: 300,
      });

      const cloud = await call(app, 'GET', '/api/searchCluster/cloud/nodes');
      const single = await call(app, 'GET', '/api/searchCluster/single/nodes');
      const nowhere = await call(app, 'GET', '/api/searchCluster/nowhere/nodes');

      assert.deepEqual(cloud.body, [
        { name: '10.0.0.9:8983_solr', baseUrl: 'http://10.0.0.9:8983/solr', state: 'live' },
        { name: solr.nodeName, baseUrl: solr.baseUrl, state: 'live' },
      ]);
      assert.deepEqual(single.body, [{ name: solr.nodeName, baseUrl: solr.baseUrl, state: 'live' }]);
      assert.equal(nowhere.status, 400);
      assert.equal(nowhere.body.code, 'cluster-unreachable');
      assert.deepEqual(stepsOf(nowhere), [['zookeeper-connect', false]]);
    });

    contract('answers that Kerberos checks are not supported yet, and stores nothing', async (t) => {
      const { app } = await build(t, engine);
      const kerberos = {
        id: 'kdc',
        connectString: `${zk.connectString}/solr`,
        authConfig: { authType: 'KERBEROS', principal: 'searchdeck@EXAMPLE.COM', keyTab: 'a2V5dGFi' },
      };

      const answer = await call(app, 'POST', '/api/searchCluster?validate=true', kerberos);

      assert.equal(answer.status, 400);
      assert.equal(answer.body.code, 'not-supported');
      assert.equal(answer.body.message, 'Kerberos connectivity checks are not supported yet');
      await assertNotStored(app, 'kdc');
      assert.equal((await call(app, 'POST', '/api/searchCluster', kerberos)).status, 200);
      assert.equal((await call(app, 'GET', '/api/searchCluster/kdc/status')).body.code, 'not-supported');
    });

    test('checks clusters in an app only through that app', async (t) => {
      const { app } = await build(t, engine);
      const solr = await solrNode(t);
      const created = await call(app, 'POST', '/api/apps/shop/searchCluster?validate=true', {
        id: 'shop-solr',
        cloud: false,
        connectString: solr.baseUrl,
      });
      assert.equal(created.status, 200);
      assert.equal((await call(app, 'GET', '/api/apps/shop/searchCluster/shop-solr/status')).status, 200);
      assert.equal((await call(app, 'GET', '/api/apps/shop/searchCluster/shop-solr/nodes')).status, 200);
      assert.equal((await call(app, 'GET', '/api/apps/blog/searchCluster/shop-solr/status')).status, 404);
    });

    test('writes no secret into any log line, whatever the request', async (t) => {
      const log = captureLog();
      const { app } = await build(t, engine, { logger: log.logger });
      const guarded = await solrNode(t, { credentials });
      const root = chroot();
      await seedSolrCloud(zk.connectString, { chroot: root, liveNodes: [guarded.nodeName] });
      const cloudBody = {
        id: 'logged',
        connectString: `${zk.connectString}${root}`,
        authConfig: basicAuth(),
      };
      const keyTab = 'S2VyYmVyb3Mta2V5dGFiLXNlY3JldA==';

      await call(app, 'POST', '/api/searchCluster?validate=true', cloudBody);
      await call(app, 'POST', '/api/searchCluster?validate=true', {
        ...cloudBody,
        id: 'bad',
        authConfig: basicAuth(`${PASSWORD}-wrong`),
      });
      await call(app, 'POST', '/api/searchCluster', {
        ...cloudBody,
        id: 'mask',
        authConfig: basicAuth('********'),
        x: PASSWORD,
      });
      await call(app, 'POST', '/api/searchCluster', {
        ...cloudBody,
        id: 'url',
        cloud: false,
        connectString: `http://u:${PASSWORD}@h/solr`,
      });
      await call(app, 'POST', '/api/searchCluster', {
        ...cloudBody,
        id: 'k',
        authConfig: { authType: 'KERBEROS', principal: 'p@R', keyTab },
      });
      await call(
        app,
        'PUT',
        '/api/searchCluster/logged?validate=true',
        (await call(app, 'GET', '/api/searchCluster/logged')).body,
      );
      await call(app, 'GET', '/api/searchCluster/logged/status');
      await call(app, 'GET', '/api/searchCluster/logged/nodes');
      await app.inject({
        method: 'POST',
        url: '/api/searchCluster',
        headers: { authorization: adminAuth, 'content-type': 'application/json' },
        payload: `{"id":"broken","authConfig":{"password":"${PASSWORD}"`,
      });

      assert.ok(log.lines.length > 10, 'the logger wrote the requests');
      assert.ok(
        log.lines.some((line) => line.includes('search-cluster check failed') && line.includes('solr-node')),
        'the failed check was logged with its steps',
      );
      const secrets = [PASSWORD, Buffer.from(`searchdeck:${PASSWORD}`).toString('base64'), keyTab];
      for (const line of log.lines) {
        for (const secret of secrets) assert.ok(!line.includes(secret), `a log line holds a secret: ${line}`);
      }
    });
  });
}
