import type { StepLog } from './check-steps.js';
import type { ClusterConnectionSettings } from './connection-settings.js';
import { baseUrlForNodeName, urlSchemeFrom } from './solr-urls.js';
import { type Deadline, withTimeout } from './timeout.js';
import { type connectZooKeeper, type ZkSession, ZooKeeperError } from './zookeeper.js';

// What a Solr 8/9 node creates under its chroot when it starts (the old /clusterstate.json is not required).
const SOLRCLOUD_MARKERS = ['/live_nodes', '/collections'];

/** Step 1: a session to the ensemble, handed to `use` and closed afterwards whatever happens. */
export async function withEnsemble<T>(
  settings: ClusterConnectionSettings,
  deadline: Deadline,
  log: StepLog,
  connect: typeof connectZooKeeper,
  use: (session: ZkSession) => Promise<T>,
): Promise<T> {
  const session = await log.run('zookeeper-connect', async () => {
    try {
      const options = { sessionTimeoutMs: settings.zkClientTimeout };
      const value = await connect(settings.connectString, deadline.remainingMs(), options);
      return { value, message: `connected to ZooKeeper at ${settings.connectString}` };
    } catch (error) {
      if (!(error instanceof ZooKeeperError && error.kind === 'timeout')) throw error;
      // The client retries refused and silent addresses alike until the time-out, so both causes stay open.
      // The message names the cluster's own time-out, not what was left of it when the connection began.
      throw new Error(
        `could not connect to ZooKeeper at ${settings.connectString} within ${settings.zkConnectTimeout} ms: ` +
          'is ZooKeeper running there, and reachable from this server?',
      );
    }
  });
  try {
    return await use(session);
  } finally {
    await session.close();
  }
}

/** Step 2: the chroot holds what a running SolrCloud writes there. */
export function verifySolrCloudState(
  session: ZkSession,
  settings: ClusterConnectionSettings,
  deadline: Deadline,
  log: StepLog,
): Promise<void> {
  return log.run('solrcloud-state', async () => {
    const present = await within(
      deadline,
      settings,
      Promise.all(SOLRCLOUD_MARKERS.map((p) => session.exists(p))),
    );
    const missing = SOLRCLOUD_MARKERS.filter((_, i) => !present[i]);
    const where = settings.connectString;
    if (missing.length > 0) {
      throw new Error(
        `ZooKeeper at ${where} holds no SolrCloud state (no ${missing.join(', no ')}): ${chrootHint(where)}`,
      );
    }
    return { value: undefined, message: `ZooKeeper at ${where} holds SolrCloud state` };
  });
}

/** Step 3: the live nodes and their base URLs; an empty list fails the step only when `requireOne`. */
export function readLiveNodes(
  session: ZkSession,
  settings: ClusterConnectionSettings,
  deadline: Deadline,
  log: StepLog,
  requireOne: boolean,
): Promise<Array<{ name: string; baseUrl: string }>> {
  return log.run('live-nodes', async () => {
    const [names, clusterProps] = await within(
      deadline,
      settings,
      Promise.all([session.children('/live_nodes'), session.getData('/clusterprops.json')]),
    );
    if (names.length === 0 && requireOne) {
      throw new Error(
        `no live Solr nodes: /live_nodes at ${settings.connectString} is empty (is Solr running?)`,
      );
    }
    const scheme = urlSchemeFrom(clusterProps);
    const nodes = names.sort().map((name) => ({ name, baseUrl: baseUrlForNodeName(name, scheme) }));
    return { value: nodes, message: `${nodes.length} live Solr node(s) registered` };
  });
}

function chrootHint(connectString: string): string {
  const slash = connectString.indexOf('/');
  const chroot = slash === -1 ? '' : connectString.slice(slash);
  if (chroot === '' || chroot === '/') {
    return 'the connect string has no chroot, and Solr clusters usually live under one (like /solr)';
  }
  return `the chroot ${chroot} is probably wrong, or no Solr node has started against it`;
}

function within<T>(deadline: Deadline, settings: ClusterConnectionSettings, work: Promise<T>): Promise<T> {
  return withTimeout(
    work,
    deadline.remainingMs(),
    () =>
      new Error(
        `ZooKeeper at ${settings.connectString} did not answer within the check's ${settings.zkConnectTimeout} ms (zkConnectTimeout)`,
      ),
  );
}
