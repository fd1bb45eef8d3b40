import type { Client } from 'node-zookeeper-client';
import zookeeper from 'node-zookeeper-client';
import { withTimeout } from '../../src/clusters/timeout.js';

export interface SolrCloudLayout {
  /** Where the cluster lives, like `/solr`; each test picks its own so no test sees another's nodes. */
  chroot: string;
  /** Live-node names as Solr registers them: `127.0.0.1:8983_solr`. */
  liveNodes: string[];
  collections?: string[];
  /** Written to /clusterprops.json when set, as `bin/solr zk` or the Collections API would. */
  urlScheme?: 'http' | 'https';
}

const SEED_TIMEOUT_MS = 10_000;

/** Writes what a running SolrCloud keeps in ZooKeeper under `layout.chroot`. */
export async function seedSolrCloud(connectString: string, layout: SolrCloudLayout): Promise<void> {
  const client = zookeeper.createClient(connectString, { spinDelay: 100 });
  const connected = new Promise<void>((resolve) => client.once('connected', resolve));
  client.connect();
  try {
    await withTimeout(connected, SEED_TIMEOUT_MS, () => new Error(`could not connect to ${connectString}`));
    const root = layout.chroot.replace(/\/+$/, '');
    await create(client, `${root}/live_nodes`);
    for (const node of layout.liveNodes) {
      // Solr registers live nodes as ephemeral; persistent ones outlive this seeding session.
      await create(client, `${root}/live_nodes/${node}`);
    }
    await create(client, `${root}/collections`);
    for (const collection of layout.collections ?? []) {
      await create(client, `${root}/collections/${collection}`, { configName: '_default' });
      await create(client, `${root}/collections/${collection}/state.json`, collectionState(collection));
    }
    await create(client, `${root}/aliases.json`);
    await create(client, `${root}/configs/_default`);
    await create(
      client,
      `${root}/clusterprops.json`,
      layout.urlScheme ? { urlScheme: layout.urlScheme } : {},
    );
  } finally {
    const closed = new Promise<void>((resolve) => client.once('disconnected', resolve));
    client.close();
    await withTimeout(closed, SEED_TIMEOUT_MS, () => new Error('seeding session did not close')).catch(
      () => {},
    );
  }
}

function collectionState(collection: string): object {
  return { [collection]: { router: { name: 'compositeId' }, replicationFactor: 1, shards: {} } };
}

function create(client: Client, path: string, json?: object): Promise<void> {
  const parent = path.slice(0, path.lastIndexOf('/'));
  const data = json === undefined ? null : Buffer.from(JSON.stringify(json));
  const created = new Promise<void>((resolve, reject) => {
    client.mkdirp(parent || '/', (parentError) => {
      if (parentError) return reject(parentError);
      client.create(path, data, (error) => {
        if (error && error.getCode() !== zookeeper.Exception.NODE_EXISTS) reject(error);
        else resolve();
      });
    });
  });
  return withTimeout(created, SEED_TIMEOUT_MS, () => new Error(`could not create ${path}`));
}
