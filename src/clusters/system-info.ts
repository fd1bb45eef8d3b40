// `GET /searchCluster/{id}/systemInfo`: what the cluster's live Solr nodes answer at
// `/admin/info/system`, asked now with the connectivity check's own client, steps and budget.
import { StepLog } from './check-steps.js';
import type { ClusterConnectionSettings } from './connection-settings.js';
import {
  type CheckFailureCode,
  type CheckStep,
  type ConnectivityDeps,
  failure,
  KERBEROS_UNSUPPORTED,
  realDeps,
} from './connectivity.js';
import { readLiveNodes, verifySolrCloudState, withEnsemble } from './solr-cloud.js';
import { probeSolrNodes } from './solr-probe.js';
import { nodeNameForBaseUrl, redactUrl } from './solr-urls.js';
import { Deadline } from './timeout.js';

/** Which nodes to ask: one by name, every live one, or (neither) the first that answers. */
export interface NodeSelection {
  nodeName?: string | undefined;
  all: boolean;
}

/** A node's answer to `/admin/info/system`, as the node gave it. */
export interface NodeSystemInfo {
  name: string;
  document: Record<string, unknown>;
}

export type SystemInfoResult =
  | { ok: true; nodes: NodeSystemInfo[] }
  | { ok: false; unknownNode: string; liveNodes: string[] }
  | { ok: false; code: CheckFailureCode; message: string; steps: CheckStep[] };

interface LiveNode {
  name: string;
  baseUrl: string;
}

// Enough to see a pattern when several nodes fail, without flooding the message.
const FAILURES_SHOWN = 3;

/** Asks the selected live nodes for their system information, within `zkConnectTimeout` in all. */
export async function nodeSystemInfo(
  settings: ClusterConnectionSettings,
  selection: NodeSelection,
  deps: Partial<ConnectivityDeps> = {},
): Promise<SystemInfoResult> {
  if (settings.authConfig.authType === 'KERBEROS') {
    return { ok: false, code: 'not-supported', message: KERBEROS_UNSUPPORTED, steps: [] };
  }
  const use = { ...realDeps, ...deps };
  const deadline = new Deadline(settings.zkConnectTimeout);
  const log = new StepLog();
  try {
    const live = settings.cloud
      ? await withEnsemble(settings, deadline, log, use.connectZooKeeper, async (session) => {
          await verifySolrCloudState(session, settings, deadline, log);
          return readLiveNodes(session, settings, deadline, log, true);
        })
      : [standaloneNode(settings.connectString)];
    const ask = (nodes: LiveNode[]) =>
      probeSolrNodes(
        nodes.map((node) => node.baseUrl),
        settings.authConfig,
        deadline,
        settings.zkConnectTimeout,
        use.getSystemInfo,
      );
    const nameOf = (baseUrl: string) => live.find((node) => node.baseUrl === baseUrl)?.name ?? baseUrl;
    if (selection.nodeName !== undefined) {
      const node = live.find((candidate) => candidate.name === selection.nodeName);
      if (!node) return { ok: false, unknownNode: selection.nodeName, liveNodes: live.map((n) => n.name) };
      const answered = await log.run('solr-node', () => ask([node]));
      return { ok: true, nodes: [{ name: node.name, document: answered.info.document }] };
    }
    if (!selection.all) {
      const answered = await log.run('solr-node', () => ask(live));
      return { ok: true, nodes: [{ name: nameOf(answered.baseUrl), document: answered.info.document }] };
    }
    const nodes = await log.run('solr-node', () => askEvery(live, ask));
    return { ok: true, nodes };
  } catch (error) {
    return failure(error, log);
  }
}

/** Every node at once, each within what is left of the budget; any that does not answer (or refuses) fails the step. */
async function askEvery(
  live: LiveNode[],
  ask: (nodes: LiveNode[]) => ReturnType<typeof probeSolrNodes>,
): Promise<{ value: NodeSystemInfo[]; message: string }> {
  const settled = await Promise.allSettled(live.map(async (node) => (await ask([node])).value));
  const nodes: NodeSystemInfo[] = [];
  const failures: string[] = [];
  settled.forEach((result, i) => {
    const name = live[i]!.name;
    if (result.status === 'fulfilled') nodes.push({ name, document: result.value.info.document });
    else failures.push(`${name}: ${messageOf(result.reason)}`);
  });
  if (failures.length > 0) {
    const more = failures.length > FAILURES_SHOWN ? `; and ${failures.length - FAILURES_SHOWN} more` : '';
    throw new Error(
      `${failures.length} of the ${live.length} live Solr nodes gave no system information: ${failures.slice(0, FAILURES_SHOWN).join('; ')}${more}`,
    );
  }
  return { value: nodes, message: `all ${live.length} live Solr node(s) answered` };
}

/** The one node of a standalone cluster, named as SolrCloud would name it. */
function standaloneNode(connectString: string): LiveNode {
  // The connect string was checked to be an http(s) URL without credentials when it was stored.
  const baseUrl = redactUrl(connectString);
  let name: string;
  try {
    name = nodeNameForBaseUrl(baseUrl);
  } catch {
    name = baseUrl;
  }
  return { name, baseUrl };
}

function messageOf(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}
