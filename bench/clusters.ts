import { once } from 'node:events';
import { createServer } from 'node:net';
import { checkConnectivity } from '../src/clusters/connectivity.js';
import { cloudSettings, standaloneSettings } from '../test/helpers/cluster-settings.js';
import { startFakeSolr } from '../test/helpers/fake-solr.js';
import { seedSolrCloud } from '../test/helpers/solr-cloud-layout.js';
import { freePort, startZooKeeper } from '../test/helpers/zookeeper.js';
import { createBenchStore, type Engine } from './engines.js';
import { percentile, startBare, startService } from './lib.js';
import type { Benchmark } from './run.js';

const quick = process.env.BENCH_QUICK === '1';
const RUNS = quick ? 20 : 100;
const UNREACHABLE_RUNS = quick ? 2 : 5;
const WARM_UP = 5;
const CHECK_TARGET_MS = 200;
const UNREACHABLE_TIMEOUT_MS = 1000;
const password = 'bench-admin-password';

interface Row {
  label: string;
  runs: number;
  timings: number[];
  target: string;
  met: boolean | undefined;
}

/** Runs `work` sequentially `runs` times after a warm-up; answers each run's milliseconds, sorted. */
async function timed(runs: number, work: () => Promise<void>, warmUp = WARM_UP): Promise<number[]> {
  for (let i = 0; i < warmUp; i++) await work();
  const timings: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await work();
    timings.push(performance.now() - started);
  }
  return timings.sort((a, b) => a - b);
}

async function passes(settings: Parameters<typeof checkConnectivity>[0]): Promise<void> {
  const result = await checkConnectivity(settings);
  if (!result.ok) throw new Error(`the check failed: ${result.message}`);
}

async function fails(settings: Parameters<typeof checkConnectivity>[0]): Promise<void> {
  const result = await checkConnectivity(settings);
  if (result.ok || result.code !== 'cluster-unreachable')
    throw new Error('the check did not fail as expected');
}

function table(rows: Row[]): string {
  const ms = (value: number) => (value < 10 ? value.toFixed(1) : String(Math.round(value)));
  const head =
    '| scenario | runs | p50 ms | p99 ms | max ms | target | met |\n|---|---:|---:|---:|---:|---|---|';
  const lines = rows.map(
    (r) =>
      `| ${r.label} | ${r.runs} | ${ms(percentile(r.timings, 50))} | ${ms(percentile(r.timings, 99))} | ${ms(r.timings.at(-1) ?? 0)} | ${r.target} | ${r.met === undefined ? '' : r.met ? 'yes' : '**no**'} |`,
  );
  return [head, ...lines].join('\n');
}

/** A server that accepts connections and never answers: the worst case for a connect. */
async function blackHole(): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((socket) => socket.resume());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    close: async () => {
      server.close();
      await once(server, 'close');
    },
  };
}

async function httpRows(connectString: string, engine: Engine): Promise<Row[]> {
  const store = await createBenchStore(engine, 'clusters');
  const service = await startService({
    ...store.env,
    SEARCHDECK_ADMIN_PASSWORD: password,
    // Required on PostgreSQL, where every node must share it.
    SEARCHDECK_SECRET_KEY: Buffer.alloc(32, 9).toString('base64'),
  });
  const bare = await startBare({ id: 'bench', ok: true, steps: [] });
  try {
    const authorization = `Basic ${Buffer.from(`admin:${password}`).toString('base64')}`;
    const created = await fetch(`${service.url}/api/searchCluster?validate=true`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'bench', connectString, zkConnectTimeout: 5000 }),
    });
    if (created.status !== 200) throw new Error(`could not create the cluster: ${await created.text()}`);
    const status = await timed(RUNS, async () => {
      const response = await fetch(`${service.url}/api/searchCluster/bench/status`, {
        headers: { authorization },
      });
      if (response.status !== 200) throw new Error(`status answered ${response.status}`);
      await response.arrayBuffer();
    });
    const baseline = await timed(RUNS, async () => {
      await (await fetch(bare.url)).arrayBuffer();
    });
    return [
      {
        label: 'GET /api/searchCluster/{id}/status over HTTP (same cluster)',
        runs: RUNS,
        timings: status,
        target: `≤ ${CHECK_TARGET_MS} ms`,
        met: percentile(status, 99) <= CHECK_TARGET_MS,
      },
      { label: 'bare Fastify route (baseline)', runs: RUNS, timings: baseline, target: '', met: undefined },
    ];
  } finally {
    await service.stop();
    await bare.stop();
    await store.remove();
  }
}

export const clustersBenchmark: Benchmark = {
  name: 'clusters',
  async run(engine: Engine) {
    const zk = await startZooKeeper();
    const solr = await startFakeSolr();
    const hole = await blackHole();
    try {
      await seedSolrCloud(zk.connectString, {
        chroot: '/bench',
        liveNodes: [solr.nodeName],
        collections: ['products'],
      });
      const cloud = cloudSettings(`${zk.connectString}/bench`);
      const rows: Row[] = [];
      const reachable = await timed(RUNS, () => passes(cloud));
      rows.push({
        label: 'cloud check, local ensemble with chroot, 1 live node (in-process)',
        runs: RUNS,
        timings: reachable,
        target: `≤ ${CHECK_TARGET_MS} ms`,
        met: percentile(reachable, 99) <= CHECK_TARGET_MS,
      });
      const standalone = await timed(RUNS, () => passes(standaloneSettings(solr.baseUrl)));
      rows.push({
        label: 'standalone check, local node (in-process)',
        runs: RUNS,
        timings: standalone,
        target: `≤ ${CHECK_TARGET_MS} ms`,
        met: percentile(standalone, 99) <= CHECK_TARGET_MS,
      });
      rows.push(...(await httpRows(`${zk.connectString}/bench`, engine)));
      const bound = UNREACHABLE_TIMEOUT_MS * 1.1;
      for (const [label, connectString] of [
        ['unreachable: nothing listens on the port', `127.0.0.1:${await freePort()}/solr`],
        ['unreachable: accepts connections, never answers', `127.0.0.1:${hole.port}/solr`],
      ] as const) {
        const timings = await timed(
          UNREACHABLE_RUNS,
          () => fails(cloudSettings(connectString, { zkConnectTimeout: UNREACHABLE_TIMEOUT_MS })),
          0,
        );
        rows.push({
          label: `${label}, zkConnectTimeout ${UNREACHABLE_TIMEOUT_MS} ms`,
          runs: UNREACHABLE_RUNS,
          timings,
          target: `≤ ${Math.round(bound)} ms (timeout + 10%)`,
          met: (timings.at(-1) ?? Number.POSITIVE_INFINITY) <= bound,
        });
      }
      return [
        '## Search clusters',
        '',
        `The connectivity check (all four steps in cloud mode) against a real ZooKeeper (Debian's package, started by the test harness on loopback) with a SolrCloud layout under a chroot, and a fake Solr node over real HTTP (test/helpers). Runs are sequential, after ${WARM_UP} warm-up runs; each check opens and closes its own ZooKeeper session and HTTP connection. The HTTP row goes through the built service (admin Basic auth, ${engine}), beside a bare Fastify route answering a constant of similar size.`,
        '',
        table(rows),
        '',
        `Targets (spec): the check against a reachable local ensemble ≤ ${CHECK_TARGET_MS} ms (judged on p99); against an unreachable address it returns within zkConnectTimeout + 10% (judged on the slowest run).`,
      ].join('\n');
    } finally {
      await hole.close();
      await solr.close();
      await zk.stop();
    }
  },
};
