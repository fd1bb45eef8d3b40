// The real SolrCloud of a test run: started once for the whole run by the first test file that
// asks for it (two nodes, ZooKeeper with chroot /solr, Basic authentication, the products
// collection holding the sample catalog on both nodes), shared by every lane, and stopped by
// itself when the test runner exits. A test that stops a node adds its own node first
// (`addSolrNode`), so that the shared collection keeps both of its replicas.
import { closeSync, existsSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  controlNodes,
  SOLR_CREDENTIALS,
  type SolrCloudAddress,
  type SolrNode,
  solrPrerequisiteMissing,
  startSolrCloud,
} from '../../scripts/solr-cloud.js';
import { SAMPLE_CATALOG_SIZE, sampleCatalog } from '../../src/demo/catalog.js';
import { ensureProductsCollection, SolrCollections } from '../../src/demo/solr-collections.js';
import { runDirectory, runnerPid } from './test-run.js';

export type { SolrNode };

export interface TestSolr extends SolrCloudAddress {
  /** The first node's base URL, `http://127.0.0.1:<port>/solr`. */
  url: string;
  /** ZooKeeper without the chroot, `127.0.0.1:<port>`. */
  zkHost: string;
  credentials: { username: string; password: string };
  /** The collection holding the sample catalog: `SAMPLE_CATALOG_SIZE` products. */
  collection: string;
  catalogSize: number;
}

const COLLECTION = 'products';
const WAIT_MS = 240_000;

/**
 * Why tests needing Solr must be skipped here, or undefined when they can run. Under `CI=true`
 * a missing Java or Maven is never a reason to skip: the tests run and fail.
 */
export function solrSkipReason(): string | undefined {
  if (process.env.CI === 'true') return undefined;
  const missing = solrPrerequisiteMissing();
  return missing && `needs Solr: ${missing}`;
}

let shared: Promise<TestSolr> | undefined;

/** The run's Solr, started by the first caller of the run and waited for by the others. */
export function testSolr(): Promise<TestSolr> {
  shared ??= openShared();
  return shared;
}

async function openShared(): Promise<TestSolr> {
  const dir = runDirectory();
  const ready = join(dir, 'solr.json');
  const failed = join(dir, 'solr.error');
  if (claim(join(dir, 'solr.starter'))) {
    try {
      writeAtomically(ready, JSON.stringify(await start()));
    } catch (error) {
      writeAtomically(failed, (error as Error).message);
      throw error;
    }
  }
  const deadline = Date.now() + WAIT_MS;
  while (!existsSync(ready)) {
    if (existsSync(failed)) throw new Error(`the run's Solr did not start: ${readFileSync(failed, 'utf8')}`);
    if (Date.now() > deadline) throw new Error(`the run's Solr was not ready within ${WAIT_MS} ms`);
    // Another lane is starting it; its file appears when it is ready.
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return JSON.parse(readFileSync(ready, 'utf8')) as TestSolr;
}

async function start(): Promise<TestSolr> {
  // The JVM ends when the runner does, whichever lane started it.
  const cloud = await startSolrCloud({ watchPid: runnerPid() });
  const url = cloud.nodes[0]!.url;
  await ensureProductsCollection(
    new SolrCollections(url, SOLR_CREDENTIALS),
    COLLECTION,
    () => sampleCatalog(SAMPLE_CATALOG_SIZE),
    { replicas: 2 },
  );
  return {
    zk: cloud.zk,
    control: cloud.control,
    nodes: cloud.nodes,
    logFile: cloud.logFile,
    url,
    zkHost: cloud.zk.replace(/\/solr$/, ''),
    credentials: { ...SOLR_CREDENTIALS },
    collection: COLLECTION,
    catalogSize: SAMPLE_CATALOG_SIZE,
  };
}

function claim(file: string): boolean {
  try {
    closeSync(openSync(file, 'wx'));
    return true;
  } catch {
    return false;
  }
}

function writeAtomically(file: string, text: string): void {
  writeFileSync(`${file}.partial`, text);
  renameSync(`${file}.partial`, file);
}

/** Starts one more node in the run's cluster, live when this resolves; it is the test's own. */
export async function addSolrNode(solr: TestSolr): Promise<SolrNode> {
  const nodes = await controlNodes(solr.control, { add: true });
  return nodes.at(-1)!;
}

/** Stops a node; it has left live_nodes when this resolves. */
export async function stopSolrNode(solr: TestSolr, node: SolrNode): Promise<void> {
  await controlNodes(solr.control, { stop: node.name });
}

/** Starts a stopped node again on its port; it is live when this resolves. */
export async function startSolrNode(solr: TestSolr, node: SolrNode): Promise<void> {
  await controlNodes(solr.control, { start: node.name });
}

/** An admin client of the run's Solr (Collections and Configsets APIs, indexing). */
export function solrAdmin(solr: TestSolr): SolrCollections {
  return new SolrCollections(solr.url, solr.credentials);
}

/** Solr's own answer to a select request on the run's cluster, straight from the first node. */
export async function selectDirect(
  solr: TestSolr,
  params: Record<string, string | string[]>,
  collection = solr.collection,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(params))
    for (const one of [value].flat()) form.append(name, one);
  form.set('wt', 'json');
  const response = await fetch(`${solr.url}/${collection}/select`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${solr.credentials.username}:${solr.credentials.password}`).toString('base64')}`,
    },
    body: form,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
