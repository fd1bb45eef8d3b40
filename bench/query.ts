// The query endpoint against the real Solr (the project's SolrCloud, one node, 100,000
// products of the sample catalog) with 10,000 live rules over that catalog in the profile's
// studio: the same shoppers' queries sent straight to the node, through searchdeck, and
// through a minimal Node proxy, in the same run.
import { bumpLiveVersion } from '../src/evaluation/repository.js';
import { openStore } from '../src/storage/database.js';
import { createStudio } from '../src/studios/service.js';
import { BENCH_CATALOG_SIZE, benchSolr, solrAuthorization } from './bench-solr.js';
import { comparisonTable, formatRatio, medianMeasure, ratioOf } from './compare.js';
import { createBenchStore, type Engine } from './engines.js';
import { seedStudio } from './evaluate.js';
import { type RunningProcess, seededRandom, startProcess, startService } from './lib.js';
import { queryStream, rotatingRounds, sideByRound } from './measure.js';
import { catalogQueries, catalogVocabulary } from './query-data.js';
import type { Benchmark } from './run.js';
import { targetTable } from './targets.js';

const quick = process.env.BENCH_QUICK === '1';
const RULES = quick ? 2_000 : 10_000;
const SECONDS = quick ? 2 : 6;
const ROUNDS = quick ? 2 : 4;
const PASSWORD = 'bench-password';
const ADDED_P99_MS = 1.5;
const OF_DIRECT = 0.75;
const admin = { authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}` };

export const queryBenchmark: Benchmark = {
  name: 'query',
  async run(engine: Engine) {
    const solr = await benchSolr();
    const node = new URL(solr.nodes[0]!.url);
    const store = await createBenchStore(engine, 'query');
    let proxy: RunningProcess | undefined;
    try {
      const minimal = await startProcess(['--import', 'tsx', 'bench/proxy-peer.ts'], {
        PROXY_UPSTREAM: node.origin,
        PROXY_AUTHORIZATION: solrAuthorization,
      });
      proxy = minimal;
      const seeding = openStore({ dataDir: store.env.SEARCHDECK_DATA_DIR!, databaseUrl: store.postgresUrl });
      try {
        const now = new Date('2026-06-01T00:00:00Z');
        await createStudio(seeding.db, { id: 'shop', name: 'shop' }, now);
        await seedStudio(seeding.db, 'shop', RULES, seededRandom(42), catalogVocabulary(BENCH_CATALOG_SIZE));
        await bumpLiveVersion(seeding.db, 'shop');
      } finally {
        await seeding.close();
      }
      await store.analyze();
      const service = await startService({
        ...store.env,
        SEARCHDECK_ADMIN_PASSWORD: PASSWORD,
        SEARCHDECK_SECRET_KEY: Buffer.alloc(32, 3).toString('base64'),
      });
      try {
        const post = async (path: string, body?: unknown) => {
          const response = await fetch(service.url + path, {
            method: 'POST',
            headers: { ...admin, ...(body ? { 'content-type': 'application/json' } : {}) },
            ...(body ? { body: JSON.stringify(body) } : {}),
          });
          if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
          return response.json() as Promise<Record<string, unknown>>;
        };
        await post('/api/apps/shop/searchCluster', {
          id: 'solr',
          connectString: solr.zk,
          authConfig: { authType: 'BASIC', username: 'solr', password: 'SolrRocks' },
        });
        await post('/api/apps/shop/query-profiles', {
          id: 'web',
          searchCluster: 'solr',
          collection: 'products',
          studio: 'shop',
          defaults: { rows: 10 },
          allowedParams: ['rows', 'start'],
          logSearches: false,
        });
        const { key } = await post('/api/apps/shop/query-profiles/web/keys');
        const headers = { authorization: `Bearer ${String(key)}` };
        const queries = catalogQueries(5_000);
        const check = await fetch(
          `${service.url}/api/apps/shop/query/web?q=${encodeURIComponent(queries[0]!)}`,
          { headers },
        );
        if (!check.ok) throw new Error(`query: ${check.status} ${await check.text()}`);
        // Every side gets the same queries, round by round: Solr's own credentials straight to
        // the node, the profile's key through searchdeck and the proxy.
        const side = (
          pid: number,
          url: string,
          path: (q: string) => string,
          connections: number,
          authorization = headers.authorization,
        ) =>
          sideByRound(
            pid,
            { label: '', url, headers: { authorization }, seconds: SECONDS, connections },
            queryStream(queries, path),
          );
        const direct = (q: string) => `/solr/products/select?q=${q}&rows=10`;
        const through = (q: string) => `/api/apps/shop/query/web?q=${q}&rows=10`;
        // Solr's JIT and caches, and searchdeck's, warm up before anything is measured.
        for (const [pid, url, path, authorization] of [
          [solr.pid, node.origin, direct, solrAuthorization],
          [service.pid, service.url, through, headers.authorization],
        ] as const) {
          await side(pid, url, path, 10, authorization)();
        }
        const rows = [];
        const figures = [];
        for (const connections of [1, 10]) {
          // The minimal proxy gets the service's requests: same paths, same header.
          const sides = await rotatingRounds(ROUNDS, {
            ours: side(service.pid, service.url, through, connections),
            direct: side(solr.pid, node.origin, direct, connections, solrAuthorization),
            proxy: side(minimal.pid, minimal.url, through, connections),
          });
          const ours = medianMeasure(sides.ours);
          const peer = medianMeasure(sides.direct);
          const ratio = ratioOf({ ours: sides.ours, peer: sides.direct }, (m) => m.rps);
          const floor = ratioOf({ ours: sides.proxy, peer: sides.direct }, (m) => m.rps);
          const ofProxy = ratioOf({ ours: sides.ours, peer: sides.proxy }, (m) => m.rps);
          const added = ours.p99 - peer.p99;
          const met = ratio.median >= OF_DIRECT && added <= ADDED_P99_MS;
          rows.push(
            {
              scenario: `through searchdeck, ${connections} connection(s)`,
              engine,
              measure: ours,
              peer: 'direct to the node',
              ratio,
              target: `≥ ${OF_DIRECT} of direct throughput, p99 + ≤ ${ADDED_P99_MS} ms`,
              met,
            },
            {
              scenario: `through searchdeck, ${connections} connection(s)`,
              engine,
              measure: ours,
              peer: 'minimal Node proxy (throughput)',
              ratio: ofProxy,
            },
            {
              scenario: `minimal Node proxy (node:http + undici, no checks), ${connections} connection(s)`,
              engine: 'peer',
              measure: medianMeasure(sides.proxy),
              peer: 'direct to the node',
              ratio: floor,
            },
            {
              scenario: `direct to the node, ${connections} connection(s)`,
              engine: 'Solr 9.10.1 node',
              measure: peer,
            },
          );
          figures.push(
            {
              figure: `p99 added, ${connections} connection(s)`,
              value: `+${added.toFixed(1)} ms (${ours.p99} against ${peer.p99})`,
              target: `≤ ${ADDED_P99_MS} ms`,
              met: added <= ADDED_P99_MS,
            },
            {
              figure: `throughput, share of direct, ${connections} connection(s)`,
              value: formatRatio(ratio),
              target: `≥ ${OF_DIRECT}`,
              met: ratio.median >= OF_DIRECT,
            },
            {
              figure: `the minimal proxy's share of direct, ${connections} connection(s)`,
              value: formatRatio(floor),
              target: 'the most a second hop allows here',
            },
          );
        }
        return [
          `## Query endpoint (${engine})`,
          '',
          `Shopper queries through a profile (${RULES.toLocaleString('en')} live rules over the catalog's queries in its studio, ${engine}, key authentication, search logging off) against a real Solr 9.10.1 node (the project's SolrCloud, one node, Basic authentication, ${BENCH_CATALOG_SIZE.toLocaleString('en')} products of the sample catalog, edismax and the QueryElevationComponent), beside the same queries sent straight to that node and through a minimal Node proxy (node:http passing the query string to the node through an undici pool, with no checks, evaluation or logging): after a warm-up of both, ${ROUNDS} rounds of ${SECONDS} s per connection count, each round starting with the next side. A third of the queries fire rules, so that Solr also does their pins, blocks and boosts on the searchdeck side. autocannon reports whole milliseconds.`,
          '',
          comparisonTable(rows),
          '',
          targetTable(figures),
          '',
          "The direct side is Solr's own answer to the shopper's query; through searchdeck, the same query also carries what the rules made of it (elevateIds, excludeIds, fq, bq), which Solr works on too. The ratio is therefore searchdeck's whole per-query work (HTTP parsing and routing in Fastify, the key check and the profile from the node's in-memory copy, evaluation over the studio's index, the second HTTP exchange) plus the rules' cost in Solr, against Solr's time per query. The minimal proxy's own share of direct is the ceiling that a second hop and the shared cores leave for any Node service in front of the node. The machine's two cores are shared by the load generator, the Solr JVM and searchdeck, so figures move between runs.",
        ].join('\n');
      } finally {
        await service.stop();
      }
    } finally {
      await proxy?.stop();
      await store.remove();
    }
  },
};
