import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connectZooKeeper, ZooKeeperError } from '../../src/clusters/zookeeper.js';
import { eventually } from '../helpers/eventually.js';
import { silentServer } from '../helpers/silent-server.js';
import { seedSolrCloud } from '../helpers/solr-cloud-layout.js';
import { startZooKeeper, type ZooKeeperServer, zooKeeperSkipReason } from '../helpers/zookeeper.js';

const WATCH_LATE = 'the watch did not report the change';

describe('a ZooKeeper session', { skip: zooKeeperSkipReason() }, () => {
  let zk: ZooKeeperServer;
  before(async () => {
    zk = await startZooKeeper();
    await seedSolrCloud(zk.connectString, {
      chroot: '/session',
      liveNodes: ['127.0.0.1:8983_solr', '127.0.0.1:7574_solr'],
      urlScheme: 'https',
    });
  });
  after(async () => {
    await zk?.stop();
  });

  it('reads nodes, children and data relative to the chroot', async (t) => {
    const session = await connectZooKeeper(`${zk.connectString}/session`, 5000);
    t.after(() => session.close());

    assert.equal(await session.exists('/live_nodes'), true);
    assert.deepEqual((await session.children('/live_nodes')).sort(), [
      '127.0.0.1:7574_solr',
      '127.0.0.1:8983_solr',
    ]);
    assert.deepEqual(JSON.parse(String(await session.getData('/clusterprops.json'))), { urlScheme: 'https' });
    assert.deepEqual(await session.getData('/live_nodes'), Buffer.alloc(0));
  });

  it('reads the same nodes with their full path when no chroot is given', async (t) => {
    const session = await connectZooKeeper(zk.connectString, 5000);
    t.after(() => session.close());

    assert.equal(await session.exists('/session/live_nodes'), true);
    assert.equal(await session.exists('/live_nodes'), false);
  });

  it('tells a missing node apart from an empty one', async (t) => {
    const session = await connectZooKeeper(`${zk.connectString}/session`, 5000);
    t.after(() => session.close());

    assert.equal(await session.exists('/missing'), false);
    assert.equal(await session.getData('/missing'), null);
    await assert.rejects(session.children('/missing'), (error: unknown) => {
      return error instanceof ZooKeeperError && error.kind === 'no-node';
    });
  });

  it('rejects calls once closed, and closing twice is harmless', async () => {
    const session = await connectZooKeeper(zk.connectString, 5000);
    await session.close();
    await session.close();

    await assert.rejects(session.exists('/'), ZooKeeperError);
  });

  it('follows the children of a node, also one created after the watch began', async (t) => {
    const session = await connectZooKeeper(`${zk.connectString}/watched`, 5000);
    t.after(() => session.close());
    const lists: string[][] = [];
    await session.watchChildren('/live_nodes', (children) => lists.push([...children].sort()));
    assert.deepEqual(lists, [[]], 'the first list, of a node that does not exist yet, is empty');

    await seedSolrCloud(zk.connectString, { chroot: '/watched', liveNodes: ['127.0.0.1:8983_solr'] });
    await eventually(() => lists.at(-1)?.length === 1, { within: 5000, message: WATCH_LATE });
    await seedSolrCloud(zk.connectString, {
      chroot: '/watched',
      liveNodes: ['127.0.0.1:8983_solr', '127.0.0.1:7574_solr'],
    });
    await eventually(() => lists.at(-1)?.length === 2, { within: 5000, message: WATCH_LATE });
    assert.deepEqual(lists.at(-1), ['127.0.0.1:7574_solr', '127.0.0.1:8983_solr']);
  });

  it('rejects a path the library cannot send instead of throwing', async (t) => {
    const session = await connectZooKeeper(zk.connectString, 5000);
    t.after(() => session.close());

    await assert.rejects(session.exists('no-leading-slash'), ZooKeeperError);
  });
});

describe('connecting to ZooKeeper', () => {
  it('rejects a connect string whose chroot is not a valid path', async () => {
    await assert.rejects(connectZooKeeper('127.0.0.1:2181/solr/', 1000), (error: unknown) => {
      return error instanceof ZooKeeperError && error.kind === 'invalid-connect-string';
    });
  });

  it('gives up when its signal is aborted, long before its time-out, and closes the connection', async (t) => {
    const { port, server: silent } = await silentServer(t);
    const connections = () =>
      new Promise<number>((resolve) => silent.getConnections((_, count) => resolve(count)));
    const abandon = new AbortController();

    const connecting = connectZooKeeper(`127.0.0.1:${port}`, 30_000, { signal: abandon.signal });
    await eventually(async () => (await connections()) === 1, { message: 'the client did not connect' });
    const started = performance.now();
    abandon.abort();

    await assert.rejects(connecting, (error: unknown) => {
      assert.ok(error instanceof ZooKeeperError && error.kind === 'abandoned', String(error));
      assert.equal(error.message, `gave up connecting to ZooKeeper at 127.0.0.1:${port}`);
      return true;
    });
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 1000, `gave up after ${Math.round(elapsed)} ms`);
    await eventually(async () => (await connections()) === 0, {
      within: 1000,
      message: 'the connection is still open',
    });
    // An aborted signal is not even tried.
    await assert.rejects(connectZooKeeper(`127.0.0.1:${port}`, 30_000, { signal: abandon.signal }), {
      name: 'ZooKeeperError',
    });
    assert.equal(await connections(), 0);
  });
});
