// `npm run solr`: the project's SolrCloud for a person: two nodes and ZooKeeper (chroot /solr)
// in one JVM, Basic authentication (solr / SolrRocks), the products collection holding the
// sample catalog. Prints one line when ready; Ctrl-C stops it. SEARCHDECK_SOLR_PORT picks the
// first node's port (default 8983), the second node takes the next one.
//
// `npm run solr -- --prepare` only resolves Solr's jars and compiles the launcher (CI does it
// before the tests, so that their time is not spent downloading).
import { SAMPLE_CATALOG_SIZE, sampleCatalog } from '../src/demo/catalog.js';
import { ensureProductsCollection, SolrCollections } from '../src/demo/solr-collections.js';
import { prepareSolr, SOLR_CREDENTIALS, solrPrerequisiteMissing, startSolrCloud } from './solr-cloud.js';

const missing = solrPrerequisiteMissing();
if (missing) {
  process.stderr.write(`npm run solr: ${missing}.\n`);
  process.exit(1);
}
const log = (line: string) => process.stderr.write(`${line}\n`);
if (process.argv.includes('--prepare')) {
  prepareSolr(log);
  process.exit(0);
}

const port = Number(process.env.SEARCHDECK_SOLR_PORT ?? 8983);
if (!Number.isInteger(port) || port < 1 || port > 65534) {
  process.stderr.write('npm run solr: SEARCHDECK_SOLR_PORT must be a port number (1-65534).\n');
  process.exit(1);
}
log('starting Solr…');
let cloud: Awaited<ReturnType<typeof startSolrCloud>>;
try {
  cloud = await startSolrCloud({ port, log });
} catch (error) {
  log(`npm run solr: ${(error as Error).message}`);
  process.exit(1);
}
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  log('stopping Solr…');
  await cloud.stop();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
try {
  const node = cloud.nodes[0]!;
  const products = await ensureProductsCollection(
    new SolrCollections(node.url, SOLR_CREDENTIALS),
    'products',
    () => sampleCatalog(SAMPLE_CATALOG_SIZE),
    { replicas: cloud.nodes.length },
  );
  log(
    `products: ${products.count} documents (user ${SOLR_CREDENTIALS.username}, password ${SOLR_CREDENTIALS.password})`,
  );
  process.stdout.write(`solr ready: ${node.url} zk: ${cloud.zk}\n`);
} catch (error) {
  log(`npm run solr: ${(error as Error).message}`);
  await cloud.stop();
  process.exit(1);
}
