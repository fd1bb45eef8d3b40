// The search-cluster check, node listing and system information against the run's real
// SolrCloud (Solr 9.10.1, ZooKeeper chroot /solr, Basic authentication with blockUnknown):
// what the HTTP fakes of the other files in this folder only play. The shared cluster may gain
// nodes from other files while this one runs, so answers are checked for the nodes they must
// hold, never for the exact set. One test adds a node of its own and stops it; one adds a user
// to Solr's security and removes it again. Its time is mostly the run's Solr start (10 to 30 s)
// when it is the first file to ask for it; the tests themselves take about 10 s.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { openLiveNodes } from '../../src/clusters/live-nodes.js';
import { type Answer, call } from '../helpers/api.js';
import { build, contractTest, engines, skipReason } from '../helpers/app.js';
import { documentedAnswer } from '../helpers/documented-answer.js';
import { eventually } from '../helpers/eventually.js';
import { addSolrNode, solrSkipReason, stopSolrNode, type TestSolr, testSolr } from '../helpers/solr.js';

const SOLR_VERSION = '9.10.1';
// Bounds a check that would hang; the real one takes tens of milliseconds.
const CHECK_BUDGET_MS = 20_000;
const WRONG_PASSWORD = 'Not-SolrRocks-7';
const SYSTEM_INFO = '/api/searchCluster/{id}/systemInfo';

const stepsOf = (answer: Answer) =>
  (answer.body.details?.steps ?? answer.body.steps).map((s: { step: string; ok: boolean }) => [s.step, s.ok]);

function assertTimedSteps(answer: Answer): void {
  const steps = answer.body.details?.steps ?? answer.body.steps;
  assert.ok(steps.length > 0);
  for (const step of steps) {
    assert.ok(Number.isInteger(step.ms) && step.ms >= 0, JSON.stringify(step));
    assert.equal(typeof step.message, 'string');
  }
}

async function assertNotStored(app: FastifyInstance, id: string): Promise<void> {
  assert.equal((await call(app, 'GET', `/api/searchCluster/${id}`)).status, 404, `${id} was stored`);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const basicHeader = (username: string, password: string) =>
  `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

for (const engine of engines) {
  const skip = solrSkipReason() ?? (await skipReason(engine));
  describe(`search clusters against the real SolrCloud on ${engine}`, { skip }, () => {
    const contract = contractTest(engine);
    let solr: TestSolr;
    before(async () => {
      solr = await testSolr();
    });

    const basic = (password = solr.credentials.password) => ({
      authType: 'BASIC',
      username: solr.credentials.username,
      password,
    });
    const cloud = (id: string, connectString: string, authConfig: object = basic()) => ({
      id,
      connectString,
      zkConnectTimeout: CHECK_BUDGET_MS,
      authConfig,
    });
    const standalone = (id: string, connectString: string, authConfig: object = basic()) => ({
      ...cloud(id, connectString, authConfig),
      cloud: false,
    });

    test('stores a definition of the cluster once every step of its check passed, and checks it again', async (t) => {
      const { app } = await build(t, engine);

      const created = await call(app, 'POST', '/api/searchCluster?validate=true', cloud('real', solr.zk));

      assert.equal(created.status, 200, JSON.stringify(created.body));
      assert.equal(created.body.connectString, solr.zk);
      assert.deepEqual(created.body.authConfig, {
        authType: 'BASIC',
        username: 'solr',
        password: '********',
      });
      assert.deepEqual((await call(app, 'GET', '/api/searchCluster/real')).body, created.body);
      const status = await call(app, 'GET', '/api/searchCluster/real/status');
      assert.equal(status.status, 200, JSON.stringify(status.body));
      assert.equal(status.body.id, 'real');
      assert.equal(status.body.ok, true);
      assert.deepEqual(stepsOf(status), [
        ['zookeeper-connect', true],
        ['solrcloud-state', true],
        ['live-nodes', true],
        ['solr-node', true],
      ]);
      assertTimedSteps(status);
      const [connect, state, live, node] = status.body.steps.map((s: { message: string }) => s.message);
      assert.equal(connect, `connected to ZooKeeper at ${solr.zk}`);
      assert.equal(state, `ZooKeeper at ${solr.zk} holds SolrCloud state`);
      assert.match(live, /^\d+ live Solr node\(s\) registered$/);
      assert.match(
        node,
        new RegExp(
          `^Solr ${escapeRegExp(SOLR_VERSION)} answered at http://127\\.0\\.0\\.1:\\d+/solr \\(mode solrcloud\\)$`,
        ),
      );
      assert.ok(!JSON.stringify(status.body).includes(solr.credentials.password));

      // A stored definition whose chroot went wrong fails its status check and stays as it was.
      const typo = await call(app, 'PUT', '/api/searchCluster/typo', cloud('typo', `${solr.zk}x`));
      assert.equal(typo.status, 200, JSON.stringify(typo.body));
      const failed = await call(app, 'GET', '/api/searchCluster/typo/status');
      assert.equal(failed.status, 400);
      assert.equal(failed.body.code, 'not-a-solr-cluster');
      assertTimedSteps(failed);
      assert.deepEqual((await call(app, 'GET', '/api/searchCluster/typo')).body, typo.body);
    });

    contract(
      'fails a wrong chroot at the SolrCloud-state step, naming the chroot, and stores nothing',
      async (t) => {
        const { app } = await build(t, engine);
        const wrong = `${solr.zkHost}/nope`;

        const answer = await call(app, 'POST', '/api/searchCluster?validate=true', cloud('nope', wrong));

        assert.equal(answer.status, 400);
        assert.equal(answer.body.code, 'not-a-solr-cluster');
        assert.equal(
          answer.body.message,
          `check step solrcloud-state failed: ZooKeeper at ${wrong} holds no SolrCloud state (no /live_nodes, no /collections): the chroot /nope is probably wrong, or no Solr node has started against it`,
        );
        assert.deepEqual(stepsOf(answer), [
          ['zookeeper-connect', true],
          ['solrcloud-state', false],
        ]);
        assertTimedSteps(answer);
        await assertNotStored(app, 'nope');

        // Without a chroot: the ensemble's root holds /solr and /zookeeper, and no cluster.
        const bare = await call(app, 'POST', '/api/searchCluster?validate=true', cloud('bare', solr.zkHost));
        assert.equal(bare.body.code, 'not-a-solr-cluster');
        assert.match(
          bare.body.message,
          /the connect string has no chroot, and Solr clusters usually live under one \(like \/solr\)$/,
        );

        // Listing the nodes needs the SolrCloud state as well.
        await call(app, 'POST', '/api/searchCluster', cloud('nope', wrong));
        const nodes = await call(app, 'GET', '/api/searchCluster/nope/nodes');
        assert.equal(nodes.status, 400);
        assert.equal(nodes.body.code, 'not-a-solr-cluster');
        assert.match(nodes.body.message, /the chroot \/nope is probably wrong/);
      },
    );

    contract(
      "fails wrong credentials naming Solr's 401, asks no further node, and stores nothing",
      async (t) => {
        const { app } = await build(t, engine);

        const answer = await call(
          app,
          'POST',
          '/api/searchCluster?validate=true',
          cloud('guarded', solr.zk, basic(WRONG_PASSWORD)),
        );

        assert.equal(answer.status, 400);
        assert.equal(answer.body.code, 'cluster-unreachable');
        // node1 and node2 are live, so whichever refuses first leaves at least one not asked.
        assert.match(
          answer.body.message,
          /^check step solr-node failed: http:\/\/127\.0\.0\.1:\d+\/solr: Solr rejected the credentials \(HTTP 401\) of user 'solr': check the username and password \(\d+ more live node\(s\) not asked: they share its security setup\)/,
        );
        assert.deepEqual(stepsOf(answer), [
          ['zookeeper-connect', true],
          ['solrcloud-state', true],
          ['live-nodes', true],
          ['solr-node', false],
        ]);
        assert.ok(!JSON.stringify(answer.body).includes(WRONG_PASSWORD));
        await assertNotStored(app, 'guarded');

        const none = await call(
          app,
          'POST',
          '/api/searchCluster?validate=true',
          cloud('anonymous', solr.zk, { authType: 'NONE' }),
        );
        assert.equal(none.body.code, 'cluster-unreachable');
        assert.match(
          none.body.message,
          /: Solr rejected the credentials \(HTTP 401\): the node requires credentials and none are configured/,
        );
        await assertNotStored(app, 'anonymous');
      },
    );

    contract(
      'answers systemInfo with wrong credentials as the failed check, naming each refusing node',
      async (t) => {
        const { app } = await build(t, engine);
        await call(app, 'POST', '/api/searchCluster', cloud('guarded', solr.zk, basic(WRONG_PASSWORD)));

        const one = await call(app, 'GET', '/api/searchCluster/guarded/systemInfo');
        assert.equal(one.status, 400);
        assert.equal(one.body.code, 'cluster-unreachable');
        assert.match(
          one.body.message,
          /^check step solr-node failed: .*Solr rejected the credentials \(HTTP 401\)/,
        );

        const all = await call(app, 'GET', '/api/searchCluster/guarded/systemInfo?all=true');
        assert.equal(all.status, 400);
        assert.equal(all.body.code, 'cluster-unreachable');
        assert.match(
          all.body.message,
          /^check step solr-node failed: \d+ of the \d+ live Solr nodes gave no system information: /,
        );
        for (const node of solr.nodes.slice(0, 2)) {
          assert.ok(
            all.body.message.includes(
              `${node.nodeName}: ${node.url}: Solr rejected the credentials (HTTP 401)`,
            ),
            all.body.message,
          );
        }
        assert.ok(!JSON.stringify(all.body).includes(WRONG_PASSWORD));
      },
    );

    contract(
      "fails a user Solr knows but does not permit with Solr's 403, not as a wrong password",
      async (t) => {
        const { app } = await build(t, engine);
        // A user of no role: Solr authenticates it, and its permission `all` (role admin) refuses it.
        const reader = { username: 'sd-reader', password: 'Reader-pass-1' };
        await securityCommand(solr, { 'set-user': { [reader.username]: reader.password } });
        t.after(() => securityCommand(solr, { 'delete-user': [reader.username] }));
        const body = cloud('reader', solr.zk, { authType: 'BASIC', ...reader });

        // Every node learns of the new user from ZooKeeper; until then it answers 401.
        const answer = await eventually(async () => {
          const answered = await call(app, 'POST', '/api/searchCluster?validate=true', body);
          assert.match(answered.body.message, /HTTP 403/);
          return answered;
        });

        assert.equal(answer.status, 400);
        assert.equal(answer.body.code, 'cluster-unreachable');
        assert.match(
          answer.body.message,
          /^check step solr-node failed: http:\/\/127\.0\.0\.1:\d+\/solr: Solr refused user 'sd-reader' \(HTTP 403\): its credentials were accepted, but its roles do not permit \/admin\/info\/system \(Solr's permission config-read, or all\)/,
        );
        assert.ok(!answer.body.message.includes('check the username and password'));
        await assertNotStored(app, 'reader');
      },
    );

    contract(
      'lists the live nodes as Solr registers them, and asks them for their system information',
      async (t) => {
        const { app } = await build(t, engine);
        await call(app, 'POST', '/api/searchCluster', cloud('real', solr.zk));
        const [node1, node2] = solr.nodes;

        const nodes = await call(app, 'GET', '/api/searchCluster/real/nodes');
        assert.equal(nodes.status, 200, JSON.stringify(nodes.body));
        for (const node of [node1!, node2!]) {
          assert.deepEqual(
            nodes.body.find((n: { name: string }) => n.name === node.nodeName),
            { name: node.nodeName, baseUrl: node.url, state: 'live' },
          );
        }
        const names = nodes.body.map((n: { name: string }) => n.name);
        assert.deepEqual(names, [...names].sort(), 'in name order');
        for (const name of names) assert.match(name, /^127\.0\.0\.1:\d+_solr$/);

        const matchesDocument = await documentedAnswer(app, SYSTEM_INFO);
        const all = await call(app, 'GET', '/api/searchCluster/real/systemInfo?all=true');
        assert.equal(all.status, 200, JSON.stringify(all.body));
        matchesDocument(all.body);
        assert.ok(node1!.nodeName in all.body && node2!.nodeName in all.body, Object.keys(all.body).join());
        for (const [name, info] of Object.entries<Record<string, unknown>>(all.body)) {
          assertSystemInfoOf(info, name, solr);
        }
        assert.ok(!JSON.stringify(all.body).includes(solr.credentials.password));

        const named = await call(
          app,
          'GET',
          `/api/searchCluster/real/systemInfo?nodeName=${node2!.nodeName}`,
        );
        assert.equal(named.status, 200, JSON.stringify(named.body));
        matchesDocument(named.body);
        assertSystemInfoOf(named.body, node2!.nodeName, solr);

        const one = await call(app, 'GET', '/api/searchCluster/real/systemInfo');
        assert.equal(one.status, 200, JSON.stringify(one.body));
        matchesDocument(one.body);
        assertSystemInfoOf(one.body, one.body.node, solr);
      },
    );

    contract('stops listing a node once it has left live_nodes, and answers 404 for it', async (t) => {
      const { app } = await build(t, engine);
      await call(app, 'POST', '/api/searchCluster', cloud('real', solr.zk));
      const listed = async () =>
        (await call(app, 'GET', '/api/searchCluster/real/nodes')).body.map((n: { name: string }) => n.name);
      // What serves queries follows /live_nodes with a watch, not per request.
      const watch = await openLiveNodes({
        connectString: solr.zk,
        cloud: true,
        zkConnectTimeout: CHECK_BUDGET_MS,
        zkClientTimeout: 30_000,
        authConfig: { authType: 'NONE' },
      });
      t.after(() => watch.close());
      const watched = () => watch.nodes().map((node) => node.name);

      const node = await addSolrNode(solr);

      const nodes = await call(app, 'GET', '/api/searchCluster/real/nodes');
      assert.deepEqual(
        nodes.body.find((n: { name: string }) => n.name === node.nodeName),
        { name: node.nodeName, baseUrl: node.url, state: 'live' },
      );
      const named = await call(app, 'GET', `/api/searchCluster/real/systemInfo?nodeName=${node.nodeName}`);
      assert.equal(named.status, 200, JSON.stringify(named.body));
      assertSystemInfoOf(named.body, node.nodeName, solr);
      await eventually(() => assert.ok(watched().includes(node.nodeName), watched().join()));

      await stopSolrNode(solr, node);

      await eventually(async () => assert.ok(!(await listed()).includes(node.nodeName)));
      await eventually(() => assert.ok(!watched().includes(node.nodeName), watched().join()));
      for (const up of solr.nodes.slice(0, 2)) assert.ok(watched().includes(up.nodeName));
      const gone = await call(app, 'GET', `/api/searchCluster/real/systemInfo?nodeName=${node.nodeName}`);
      assert.equal(gone.status, 404);
      assert.equal(gone.body.code, 'not-found');
      assert.match(
        gone.body.message,
        new RegExp(`^no live Solr node ${escapeRegExp(node.nodeName)} in search cluster real`),
      );
      const all = await call(app, 'GET', '/api/searchCluster/real/systemInfo?all=true');
      assert.equal(all.status, 200, JSON.stringify(all.body));
      assert.ok(!(node.nodeName in all.body));
      assert.equal((await call(app, 'GET', '/api/searchCluster/real/status')).status, 200);
    });

    contract('checks a node as a standalone Solr and names it as SolrCloud does', async (t) => {
      const { app } = await build(t, engine);
      const node1 = solr.nodes[0]!;

      const created = await call(
        app,
        'POST',
        '/api/searchCluster?validate=true',
        standalone('node1', solr.url),
      );
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const status = await call(app, 'GET', '/api/searchCluster/node1/status');
      assert.deepEqual(stepsOf(status), [['solr-node', true]]);
      assert.equal(
        status.body.steps[0].message,
        `Solr ${SOLR_VERSION} answered at ${solr.url} (mode solrcloud)`,
      );
      const slash = await call(
        app,
        'POST',
        '/api/searchCluster?validate=true',
        standalone('slash', `${solr.url}/`),
      );
      assert.equal(slash.status, 200, JSON.stringify(slash.body));

      // The name searchdeck derives from the URL is the one the node gives itself.
      assert.deepEqual((await call(app, 'GET', '/api/searchCluster/node1/nodes')).body, [
        { name: node1.nodeName, baseUrl: solr.url, state: 'live' },
      ]);
      const one = await call(app, 'GET', '/api/searchCluster/node1/systemInfo');
      assertSystemInfoOf(one.body, node1.nodeName, solr);
      const all = await call(app, 'GET', '/api/searchCluster/node1/systemInfo?all=true');
      assert.deepEqual(Object.keys(all.body), [node1.nodeName]);
      assertSystemInfoOf(all.body[node1.nodeName], node1.nodeName, solr);
      const named = await call(app, 'GET', `/api/searchCluster/node1/systemInfo?nodeName=${node1.nodeName}`);
      assertSystemInfoOf(named.body, node1.nodeName, solr);
      const other = await call(app, 'GET', '/api/searchCluster/node1/systemInfo?nodeName=10.0.0.1:8983_solr');
      assert.equal(other.status, 404);

      const anonymous = await call(
        app,
        'POST',
        '/api/searchCluster?validate=true',
        standalone('anonymous', solr.url, { authType: 'NONE' }),
      );
      assert.equal(anonymous.status, 400);
      assert.equal(anonymous.body.code, 'cluster-unreachable');
      assert.equal(
        anonymous.body.message,
        `check step solr-node failed: ${solr.url}: Solr rejected the credentials (HTTP 401): the node requires credentials and none are configured`,
      );
      await assertNotStored(app, 'anonymous');
    });

    contract(
      "lists the collections: the cloud's from ZooKeeper, a standalone node's cores from Solr",
      async (t) => {
        const { app } = await build(t, engine);
        const documented = await documentedAnswer(app, '/api/searchCluster/{id}/collections');
        await call(app, 'PUT', '/api/searchCluster/listed', cloud('listed', solr.zk));
        const collections = await call(app, 'GET', '/api/searchCluster/listed/collections');
        assert.equal(collections.status, 200, JSON.stringify(collections.body));
        documented(collections.body);
        assert.ok(collections.body.includes(solr.collection), JSON.stringify(collections.body));
        assert.deepEqual(collections.body, [...collections.body].sort());

        // A node of the cloud asked as a standalone Solr: its cores, the collection's replicas.
        await call(app, 'PUT', '/api/searchCluster/one', standalone('one', solr.url));
        const cores = await call(app, 'GET', '/api/searchCluster/one/collections');
        assert.equal(cores.status, 200, JSON.stringify(cores.body));
        documented(cores.body);
        assert.ok(
          cores.body.some((core: string) => core.startsWith(`${solr.collection}_shard`)),
          JSON.stringify(cores.body),
        );

        // Credentials Solr refuses: the step says so, as the check does.
        await call(
          app,
          'PUT',
          '/api/searchCluster/refused',
          standalone('refused', solr.url, basic(WRONG_PASSWORD)),
        );
        const refused = await call(app, 'GET', '/api/searchCluster/refused/collections');
        assert.equal(refused.status, 400);
        assert.equal(refused.body.code, 'cluster-unreachable');
        assert.match(refused.body.message, /Solr rejected the credentials \(HTTP 401\)/);
        assert.equal((await call(app, 'GET', '/api/searchCluster/nope/collections')).status, 404);
      },
    );

    contract('fails a URL that is not a Solr base URL with the 404 the node answers there', async (t) => {
      const { app } = await build(t, engine);
      const origin = new URL(solr.url).origin;
      // Another context, no context, and a collection's URL: Solr answers none of them at /admin/info/system.
      for (const url of [`${origin}/search`, origin, `${solr.url}/${solr.collection}`]) {
        const answer = await call(app, 'POST', '/api/searchCluster?validate=true', standalone('wrong', url));
        assert.equal(answer.status, 400, url);
        assert.equal(answer.body.code, 'cluster-unreachable');
        assert.match(
          answer.body.message,
          /HTTP 404: no Solr answers at this path \(is this a Solr base URL, usually ending in \/solr\?\)$/,
          url,
        );
      }
      await assertNotStored(app, 'wrong');
    });
  });
}

/** What a node of the run's cluster answers at /admin/info/system, asked as the user `solr`. */
function assertSystemInfoOf(info: Record<string, unknown>, nodeName: unknown, solr: TestSolr): void {
  assert.equal(typeof nodeName, 'string');
  assert.match(nodeName as string, /^127\.0\.0\.1:\d+_solr$/);
  assert.equal(info.node, nodeName, 'the node that answered is the one asked');
  assert.equal(info.mode, 'solrcloud');
  assert.equal(info.zkHost, solr.zk);
  const lucene = info.lucene as Record<string, unknown>;
  assert.equal(lucene['solr-spec-version'], SOLR_VERSION);
  const security = info.security as Record<string, unknown>;
  // The node saw the stored credentials: it names the user it authenticated.
  assert.equal(security.username, solr.credentials.username);
  assert.deepEqual(security.roles, ['admin']);
}

/** A command of Solr's authentication API (`set-user`, `delete-user`), as the admin user. */
async function securityCommand(solr: TestSolr, command: object): Promise<void> {
  const response = await fetch(`${solr.url}/admin/authentication`, {
    method: 'POST',
    headers: {
      authorization: basicHeader(solr.credentials.username, solr.credentials.password),
      'content-type': 'application/json',
    },
    body: JSON.stringify(command),
  });
  assert.equal(response.status, 200, await response.text());
}
