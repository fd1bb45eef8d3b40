import { type AuthConfig, basicCredentials } from './connection-settings.js';
import type { getSystemInfo, SolrSystemInfo, SystemInfoResult } from './solr.js';
import { redactUrl } from './solr-urls.js';
import type { Deadline } from './timeout.js';

type FailedProbe = Extract<SystemInfoResult, { ok: false }>;

// Enough to see a pattern in a failure message without flooding it.
const FAILURES_SHOWN = 3;

// Answers that end the search: a cluster's nodes share one security setup, so the others would answer the same.
const REFUSALS: ReadonlySet<FailedProbe['failure']> = new Set(['credentials-rejected', 'forbidden']);

/** The node that answered, and what it answered. */
export interface AnsweringNode {
  baseUrl: string;
  info: SolrSystemInfo;
}

/**
 * Step 4: asks the nodes at `baseUrls`, in order, until one answers as Solr or the deadline
 * passes; a node that refuses the credentials (401 or 403) ends the search, since a cluster's
 * nodes share one security setup.
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
    failures.push(`${redactUrl(baseUrl)}: ${explain(result, authConfig, budgetMs)}`);
    if (REFUSALS.has(result.failure)) {
      throw new Error(refused(failures, baseUrls.length - failures.length));
    }
  }
  throw new Error(summarize(failures, baseUrls.length, budgetMs));
}

/** A node refused the credentials: that is the cause, said first; nodes that did not answer before it follow. */
function refused(failures: string[], notAsked: number): string {
  const refusal = failures.at(-1)!;
  const others =
    notAsked > 0 ? ` (${notAsked} more live node(s) not asked: they share its security setup)` : '';
  const earlier = failures.slice(0, -1);
  if (earlier.length === 0) return `${refusal}${others}`;
  const more = earlier.length > FAILURES_SHOWN ? `; and ${earlier.length - FAILURES_SHOWN} more` : '';
  return `${refusal}${others}; before it, ${earlier.length} node(s) did not answer: ${earlier.slice(0, FAILURES_SHOWN).join('; ')}${more}`;
}

function explain(failure: FailedProbe, authConfig: AuthConfig, budgetMs: number): string {
  switch (failure.failure) {
    case 'timeout':
      // Each node is asked for what is left of the check's time; the user set the whole.
      return `no answer within the check's ${budgetMs} ms (zkConnectTimeout)`;
    case 'credentials-rejected':
      return authConfig.authType === 'BASIC'
        ? `${failure.message} of user '${authConfig.username ?? ''}': check the username and password`
        : `${failure.message}: the node requires credentials and none are configured`;
    case 'forbidden':
      // Solr authenticated the user: what to check is its roles, not its password.
      return authConfig.authType === 'BASIC'
        ? `Solr refused user '${authConfig.username ?? ''}' (HTTP 403): its credentials were accepted, but its roles do not permit /admin/info/system (Solr's permission config-read, or all)`
        : `Solr refused a request without credentials (HTTP 403): the node requires credentials and none are configured`;
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
