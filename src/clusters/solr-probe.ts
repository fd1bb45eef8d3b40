import { type AuthConfig, basicCredentials } from './connection-settings.js';
import type { getSystemInfo, SolrSystemInfo, SystemInfoResult } from './solr.js';
import { redactUrl } from './solr-urls.js';
import type { Deadline } from './timeout.js';

type FailedProbe = Extract<SystemInfoResult, { ok: false }>;

// Enough to see a pattern in a failure message without flooding it.
const FAILURES_SHOWN = 3;

/** The node that answered, and what it answered. */
export interface AnsweringNode {
  baseUrl: string;
  info: SolrSystemInfo;
}

/**
 * Step 4: asks the nodes at `baseUrls`, in order, until one answers as Solr or the deadline
 * passes; rejected credentials end the search, since a cluster's nodes share one security setup.
 * Throws an Error whose message says why none answered.
 */
export async function probeSolrNodes(
  baseUrls: string[],
  authConfig: AuthConfig,
  deadline: Deadline,
  budgetMs: number,
  probe: typeof getSystemInfo,
): Promise<{ value: AnsweringNode; message: string }> {
  const auth = basicCredentials(authConfig);
  const failures: string[] = [];
  for (const baseUrl of baseUrls) {
    const remaining = deadline.remainingMs();
    if (remaining === 0) break;
    const result = await probe(baseUrl, auth, remaining);
    if (result.ok) {
      const mode = result.info.mode ? ` (mode ${result.info.mode})` : '';
      return {
        value: { baseUrl, info: result.info },
        message: `Solr ${result.info.solrVersion} answered at ${redactUrl(baseUrl)}${mode}`,
      };
    }
    failures.push(`${redactUrl(baseUrl)}: ${explain(result, authConfig)}`);
    if (result.failure === 'credentials-rejected') break;
  }
  throw new Error(summarize(failures, baseUrls.length, budgetMs));
}

function explain(failure: FailedProbe, authConfig: AuthConfig): string {
  switch (failure.failure) {
    case 'credentials-rejected':
      return authConfig.authType === 'BASIC'
        ? `${failure.message} of user '${authConfig.username ?? ''}': check the username and password`
        : `${failure.message}: the node requires credentials and none are configured`;
    case 'nothing-listening':
      return `${failure.message} (is Solr running there?)`;
    case 'not-solr':
      return `${failure.message} (is this a Solr base URL, usually ending in /solr?)`;
    default:
      return failure.message;
  }
}

function summarize(failures: string[], nodeCount: number, budgetMs: number): string {
  if (failures.length === 0) {
    return `no time was left to ask a Solr node within the check's ${budgetMs} ms (zkConnectTimeout)`;
  }
  if (nodeCount === 1) return `the Solr node did not answer: ${failures[0]}`;
  const more = failures.length > FAILURES_SHOWN ? `; and ${failures.length - FAILURES_SHOWN} more` : '';
  const untried = nodeCount - failures.length;
  const rest = untried > 0 ? ` (${untried} not tried)` : '';
  return `none of the ${nodeCount} live Solr nodes answered${rest}: ${failures.slice(0, FAILURES_SHOWN).join('; ')}${more}`;
}
