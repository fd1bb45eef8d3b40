// The query endpoint when ZooKeeper cannot be reached: a shopper's query is answered within the
// profile's timeoutMs (504 naming ZooKeeper), not after the cluster's zkConnectTimeout; queries
// share the one connection attempt, which goes on in the background, so a query after ZooKeeper
// comes back is served; and closing the app gives the attempt up at once.
import assert from 'node:assert/strict';
import { after, before, describe, type TestContext, test } from 'node:test';
import { type Answer, call } from '../helpers/api.js';
import { build } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';
import { seedSolrCloud } from '../helpers/solr-cloud-layout.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { startZooKeeper, type ZooKeeperServer, zooKeeperSkipReason } from '../helpers/zookeeper.js';
import { startSelectSolr } from './select-solr.js';

const APP = 'shop';
// Far apart, so that an answer bounded by the one cannot pass for one bounded by the other.
const TIMEOUT_MS = 500;
const ZK_CONNECT_TIMEOUT_MS = 30_000;
// What an answer may take beyond the profile's time-out: the request's own work, a busy machine.
const SLACK_MS = 1500;
let chroots = 0;

/** An answer, with the time it took. */
type Timed = Answer & { elapsed: number };

describe('the query endpoint with ZooKeeper unreachable', { skip: zooKeeperSkipReason() }, () => {
  let zk: ZooKeeperServer;
  before(async () => {
    zk = await startZooKeeper();
  });
  after(async () => {
    await zk?.stop();
  });

  /**
   * A SolrCloud of one node whose ZooKeeper is reached through a proxy, a profile over it with a
   * short time-out and a key; the proxy is left as `unreachable` makes it before any query.
   */
  async function setUp(t: TestContext, unreachable: (proxy: TcpProxy) => Promise<void> | void) {
    const solr = await startSelectSolr();
    t.after(() => solr.close());
    const proxy = await startTcpProxy(zk.connectString);
    t.after(() => proxy.close());
    const chroot = `/unreachable${chroots++}`;
    await seedSolrCloud(zk.connectString, { chroot, liveNodes: [solr.nodeName], collections: ['products'] });
    const { app } = await build(t, 'sqlite');
    const connectString = `${proxy.address}${chroot}`;
    const made = [
      await call(app, 'POST', `/api/apps/${APP}/searchCluster`, {
        id: 'solr',
        connectString,
        zkConnectTimeout: ZK_CONNECT_TIMEOUT_MS,
      }),
      await call(app, 'POST', `/api/apps/${APP}/query-profiles`, {
        id: 'web',
        searchCluster: 'solr',
        collection: 'products',
        timeoutMs: TIMEOUT_MS,
      }),
      await call(app, 'POST', `/api/apps/${APP}/query-profiles/web/keys`),
    ];
    for (const answer of made) assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const key = made[2]!.body.key as string;
    await unreachable(proxy);
    /** A shopper's query, with the time it took to be answered. */
    const query = async (): Promise<Timed> => {
      const started = performance.now();
      const answer = await call(
        app,
        'GET',
        `/api/apps/${APP}/query/web?q=kettle`,
        undefined,
        `Bearer ${key}`,
      );
      return { ...answer, elapsed: performance.now() - started };
    };
    return { app, solr, proxy, connectString, query };
  }

  /** A 504 naming ZooKeeper, answered within the profile's time-out (and no earlier than it). */
  function assertTimedOut(answer: Timed, connectString: string) {
    assert.equal(answer.status, 504, JSON.stringify(answer.body));
    assert.ok(
      answer.elapsed < TIMEOUT_MS + SLACK_MS,
      `answered after ${Math.round(answer.elapsed)} ms, the profile's time-out is ${TIMEOUT_MS} ms`,
    );
    // A timer may fire a moment before performance.now() says its time is up.
    assert.ok(answer.elapsed >= TIMEOUT_MS - 5, `answered after ${Math.round(answer.elapsed)} ms`);
    assert.equal(answer.body.code, 'solr-timeout');
    assert.equal(answer.body.status, 504);
    assert.equal(
      answer.body.message,
      `ZooKeeper at ${connectString} could not be reached within ${TIMEOUT_MS} ms: the live Solr nodes of search cluster solr are not known yet`,
    );
    assert.deepEqual(answer.body.details, { cluster: 'solr', zooKeeper: connectString });
    assert.doesNotMatch(JSON.stringify(answer.body), /\bat .+\.(ts|js):\d+/, 'no stack trace');
  }

  test('nothing listening: answered within timeoutMs, then served once ZooKeeper listens again', async (t) => {
    const { solr, proxy, connectString, query } = await setUp(t, (proxy) => proxy.cut());

    assertTimedOut(await query(), connectString);
    // Queries meanwhile wait for the same attempt, each no longer than its time-out.
    for (const answer of await Promise.all([query(), query(), query()]))
      assertTimedOut(answer, connectString);

    // The attempt under way keeps trying the port: once ZooKeeper listens there, queries are served.
    await proxy.resume();
    const served = await eventually(
      async () => {
        const answer = await query();
        return answer.status === 200 && answer;
      },
      { within: 10_000, message: 'no query was served after ZooKeeper listened again' },
    );
    assert.equal(served.body.fusion.node, solr.nodeName);
  });

  test('a server that accepts and never answers: one connection for all queries, then served once it answers', async (t) => {
    const { solr, proxy, connectString, query } = await setUp(t, (proxy) => proxy.stall());

    assertTimedOut(await query(), connectString);
    for (const answer of await Promise.all([query(), query(), query()]))
      assertTimedOut(answer, connectString);
    assertTimedOut(await query(), connectString);
    assert.equal(proxy.accepted, 1, 'the queries share one connection attempt');

    // ZooKeeper answers what waited on the connection: the attempt still under way opens the session.
    await proxy.resume();
    const served = await eventually(
      async () => {
        const answer = await query();
        return answer.status === 200 && answer;
      },
      { within: 10_000, message: 'no query was served after ZooKeeper answered' },
    );
    assert.equal(served.body.fusion.node, solr.nodeName);
    assert.equal(proxy.accepted, 1, 'the session is the one the first query started');
  });

  test('closing the app gives up an attempt still under way and leaves no connection open', async (t) => {
    const { app, proxy, connectString, query } = await setUp(t, (proxy) => proxy.stall());
    assertTimedOut(await query(), connectString);
    assert.equal(proxy.open, 1);

    const started = performance.now();
    await app.close();
    const elapsed = performance.now() - started;
    assert.ok(elapsed < SLACK_MS, `the app took ${Math.round(elapsed)} ms to close`);
    await eventually(() => assert.equal(proxy.open, 0, 'the connection to ZooKeeper is still open'), {
      within: 1000,
    });
  });
});
