// The real Solr of the query benchmark: the project's SolrCloud (solr/) with one node, so that
// a query sent straight to it and one sent through searchdeck reach the same core, and the
// sample catalog at 100,000 products. Started once per bench run and ended with it.
import { SOLR_CREDENTIALS, type SolrCloud, startSolrCloud } from '../scripts/solr-cloud.js';
import { sampleCatalog } from '../src/demo/catalog.js';
import { ensureProductsCollection, SolrCollections } from '../src/demo/solr-collections.js';

export const BENCH_CATALOG_SIZE = Number(process.env.BENCH_CATALOG_SIZE ?? 100_000);

let started: Promise<SolrCloud> | undefined;

export function benchSolr(): Promise<SolrCloud> {
  started ??= (async () => {
    process.stdout.write(`starting Solr and indexing ${BENCH_CATALOG_SIZE.toLocaleString('en')} products…\n`);
    // The JVM ends when the bench does.
    const cloud = await startSolrCloud({ nodes: 1, watchPid: process.pid, heap: '1g' });
    await ensureProductsCollection(
      new SolrCollections(cloud.nodes[0]!.url, SOLR_CREDENTIALS),
      'products',
      () => sampleCatalog(BENCH_CATALOG_SIZE),
    );
    return cloud;
  })();
  return started;
}

export const solrAuthorization = `Basic ${Buffer.from(`${SOLR_CREDENTIALS.username}:${SOLR_CREDENTIALS.password}`).toString('base64')}`;
