import { type CheckStep, type ConnectivityFailureCode, StepFailed, StepLog } from './check-steps.js';
import type { ClusterConnectionSettings } from './connection-settings.js';
import { getSystemInfo } from './solr.js';
import { readLiveNodes, verifySolrCloudState, withEnsemble } from './solr-cloud.js';
import { probeSolrNodes } from './solr-probe.js';
import { nodeNameForBaseUrl, redactUrl } from './solr-urls.js';
import { Deadline } from './timeout.js';
import { connectZooKeeper } from './zookeeper.js';

export type { CheckStep, CheckStepName, ConnectivityFailureCode } from './check-steps.js';

/** The outside systems the check talks to; tests of other areas may replace them. */
export interface ConnectivityDeps {
  connectZooKeeper: typeof connectZooKeeper;
  getSystemInfo: typeof getSystemInfo;
}

/** Codes of the closed list (src/http/errors.ts): Kerberos checks are `not-supported` yet. */
export type CheckFailureCode = ConnectivityFailureCode | 'not-supported';

export type ConnectivityResult =
  | { ok: true; steps: CheckStep[] }
  | { ok: false; code: CheckFailureCode; message: string; steps: CheckStep[] };

export interface ClusterNode {
  name: string;
  baseUrl: string;
  /** Cloud: `live` (registered under /live_nodes). Standalone: whether the node answered just now. */
  state: 'live' | 'down' | 'unknown';
}

export type NodeListResult =
  | { ok: true; nodes: ClusterNode[] }
  | { ok: false; code: CheckFailureCode; message: string; steps: CheckStep[] };

export const KERBEROS_UNSUPPORTED = 'Kerberos connectivity checks are not supported yet';

export const realDeps: ConnectivityDeps = { connectZooKeeper, getSystemInfo };

/** Runs the spec's connectivity check now; the whole of it takes at most about `zkConnectTimeout`. */
export async function checkConnectivity(
  settings: ClusterConnectionSettings,
  deps: Partial<ConnectivityDeps> = {},
): Promise<ConnectivityResult> {
  if (settings.authConfig.authType === 'KERBEROS') {
    return { ok: false, code: 'not-supported', message: KERBEROS_UNSUPPORTED, steps: [] };
  }
  const use = { ...realDeps, ...deps };
  const deadline = new Deadline(settings.zkConnectTimeout);
  const log = new StepLog();
  const probe = (baseUrls: string[]) =>
    log.run('solr-node', () =>
      probeSolrNodes(baseUrls, settings.authConfig, deadline, settings.zkConnectTimeout, use.getSystemInfo),
    );
  try {
    if (settings.cloud) {
      await withEnsemble(settings, deadline, log, use.connectZooKeeper, async (session) => {
        await verifySolrCloudState(session, settings, deadline, log);
        const nodes = await readLiveNodes(session, settings, deadline, log, true);
        await probe(nodes.map((node) => node.baseUrl));
      });
    } else {
      await probe([settings.connectString]);
    }
    return { ok: true, steps: log.steps };
  } catch (error) {
    return failure(error, log);
  }
}

/** The cluster's Solr nodes for `GET /searchCluster/{id}/nodes`, bounded like the check. */
export async function listNodes(
  settings: ClusterConnectionSettings,
  deps: Partial<ConnectivityDeps> = {},
): Promise<NodeListResult> {
  const use = { ...realDeps, ...deps };
  const deadline = new Deadline(settings.zkConnectTimeout);
  const log = new StepLog();
  if (!settings.cloud) return { ok: true, nodes: [await standaloneNode(settings, deadline, log, use)] };
  try {
    const nodes = await withEnsemble(settings, deadline, log, use.connectZooKeeper, async (session) => {
      await verifySolrCloudState(session, settings, deadline, log);
      return readLiveNodes(session, settings, deadline, log, false);
    });
    return { ok: true, nodes: nodes.map((node) => ({ ...node, state: 'live' })) };
  } catch (error) {
    return failure(error, log);
  }
}

async function standaloneNode(
  settings: ClusterConnectionSettings,
  deadline: Deadline,
  log: StepLog,
  use: ConnectivityDeps,
): Promise<ClusterNode> {
  // The answer is shown to users, so a password written into the URL must not come back in it.
  const baseUrl = redactUrl(settings.connectString);
  let name: string;
  try {
    name = nodeNameForBaseUrl(baseUrl);
  } catch {
    return { name: baseUrl, baseUrl, state: 'down' };
  }
  if (settings.authConfig.authType === 'KERBEROS') return { name, baseUrl, state: 'unknown' };
  const answered = await log
    .run('solr-node', () =>
      probeSolrNodes([baseUrl], settings.authConfig, deadline, settings.zkConnectTimeout, use.getSystemInfo),
    )
    .then(
      () => true,
      () => false,
    );
  return { name, baseUrl, state: answered ? 'live' : 'down' };
}

/** The result of a check that stopped at a failed step (any other error is rethrown). */
export function failure(
  error: unknown,
  log: StepLog,
): { ok: false; code: CheckFailureCode; message: string; steps: CheckStep[] } {
  if (!(error instanceof StepFailed)) throw error;
  return { ok: false, code: error.code, message: error.message, steps: log.steps };
}
