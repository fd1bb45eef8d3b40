// `GET /searchCluster/{id}/collections`: the collections a query profile may search, asked now:
// a SolrCloud's from ZooKeeper (`/collections` under the chroot), a standalone Solr's cores
// from its CoreAdmin, within the check's budget and with its steps when it fails.
import { StepLog } from './check-steps.js';
import { basicCredentials, type ClusterConnectionSettings } from './connection-settings.js';
import { type CheckFailureCode, type CheckStep, failure, KERBEROS_UNSUPPORTED } from './connectivity.js';
import { getCoreNames } from './solr.js';
import { verifySolrCloudState, withEnsemble } from './solr-cloud.js';
import { redactUrl } from './solr-urls.js';
import { Deadline, withTimeout } from './timeout.js';
import { connectZooKeeper } from './zookeeper.js';

export type CollectionsResult =
  | { ok: true; collections: string[] }
  | { ok: false; code: CheckFailureCode; message: string; steps: CheckStep[] };

export async function listCollections(settings: ClusterConnectionSettings): Promise<CollectionsResult> {
  const deadline = new Deadline(settings.zkConnectTimeout);
  const log = new StepLog();
  try {
    if (settings.cloud) {
      const names = await withEnsemble(settings, deadline, log, connectZooKeeper, async (session) => {
        await verifySolrCloudState(session, settings, deadline, log);
        return log.run('solrcloud-state', async () => {
          const children = await withTimeout(
            session.children('/collections'),
            deadline.remainingMs(),
            () => new Error(`ZooKeeper did not list the collections within ${settings.zkConnectTimeout} ms`),
          );
          return { value: children, message: `${children.length} collection(s) under /collections` };
        });
      });
      return { ok: true, collections: names.sort() };
    }
    if (settings.authConfig.authType === 'KERBEROS') {
      return { ok: false, code: 'not-supported', message: KERBEROS_UNSUPPORTED, steps: [] };
    }
    const baseUrl = redactUrl(settings.connectString);
    const cores = await log.run('solr-node', async () => {
      const answer = await getCoreNames(
        baseUrl,
        basicCredentials(settings.authConfig),
        deadline.remainingMs(),
      );
      if (!answer.ok) throw new Error(`${baseUrl}: ${answer.message}`);
      return { value: answer.value, message: `${answer.value.length} core(s) at ${baseUrl}` };
    });
    return { ok: true, collections: cores };
  } catch (error) {
    return failure(error, log);
  }
}
