// Early answers scenario: each endpoint that answers early, through its two doors, in one
// run on one store. The same service is started twice, with its early answers and without
// them (every request through the route), beside a bare Fastify route; wrk sends the three
// the same requests in rotating rounds. An early answer is kept only where it gives at least
// 15 % more throughput than its route on both engines (docs/decisions.md, which keeps the
// figures of the suggestions and the link check, whose early answers did not pay and went).

import { bumpLiveVersion } from '../src/evaluation/repository.js';
import { openStore } from '../src/storage/database.js';
import { createClient, createStudio } from '../src/studios/service.js';
import { type ComparisonRow, comparisonTable, medianMeasure, ratioOf } from './compare.js';
import { type BenchStore, createBenchStore, type Engine } from './engines.js';
import { seedStudio } from './evaluate.js';
import { shopperQueries } from './evaluate-data.js';
import { type RunningProcess, seededRandom, startBare, startProcess, tokenOf } from './lib.js';
import { measureServer, rotatingRounds } from './measure.js';
import type { Benchmark } from './run.js';

const quick = process.env.BENCH_QUICK === '1';
const RULES = quick ? 500 : 2_000;
const SECONDS = quick ? 3 : 5;
const ROUNDS = quick ? 3 : 5;
const CONNECTIONS = 20;
const KEEP_AT = 1.15;
const PASSWORD = 'bench-admin-password';
const SECRET_KEY = Buffer.alloc(32, 9).toString('base64');
const q = encodeURIComponent;

/** The service of `bench/service-server.ts`, with or without early answers. */
function startDoors(store: BenchStore, early: boolean): Promise<RunningProcess> {
  return startProcess(['--import', 'tsx', 'bench/service-server.ts'], {
    ...store.env,
    SEARCHDECK_LOG_LEVEL: 'warn',
    SEARCHDECK_ADMIN_PASSWORD: PASSWORD,
    SEARCHDECK_SECRET_KEY: SECRET_KEY,
    BENCH_EARLY_ANSWERS: early ? 'on' : 'off',
  });
}

/** A studio of live rules with a client, straight into the store. */
async function seedStore(store: BenchStore): Promise<{ clientId: string; clientSecret: string }> {
  const opened = openStore({ dataDir: store.env.SEARCHDECK_DATA_DIR!, databaseUrl: store.postgresUrl });
  try {
    const now = new Date('2026-06-01T00:00:00Z');
    await createStudio(opened.db, { id: 'shop', name: 'shop' }, now);
    const client = await createClient(opened.db, 'shop', { name: 'bench' }, now);
    await seedStudio(opened.db, 'shop', RULES, seededRandom(42));
    await bumpLiveVersion(opened.db, 'shop');
    await store.analyze();
    return { clientId: client.clientId, clientSecret: client.clientSecret };
  } finally {
    await opened.close();
  }
}

interface Path {
  name: string;
  headers: Record<string, string>;
  paths: (round: number) => () => string;
}

async function earlyAnswers(engine: Engine): Promise<string> {
  const store = await createBenchStore(engine, 'early');
  const running: RunningProcess[] = [];
  try {
    const client = await seedStore(store);
    const early = await startDoors(store, true);
    running.push(early);
    const route = await startDoors(store, false);
    running.push(route);
    const bare = await startBare(true);
    running.push(bare);
    const token = await tokenOf(early.url, client);
    const queries = shopperQueries(10_000);
    const paths: Path[] = [
      {
        name: `evaluate, ${RULES.toLocaleString('en')} live rules, bearer token`,
        headers: { authorization: `Bearer ${token}` },
        paths: (round) => {
          let next = round * 997;
          return () => `/em-rules/evaluate?q=${q(queries[next++ % queries.length]!)}`;
        },
      },
    ];
    // Unmeasured first: the remembered credentials, the index and the JIT of each side warm up.
    for (const path of paths)
      for (const side of [early, route, bare])
        await measureServer(side.pid, {
          label: 'warm-up',
          url: side.url,
          headers: path.headers,
          path: path.paths(99),
          seconds: 2,
          connections: CONNECTIONS,
          generator: 'wrk',
        });
    const rows: ComparisonRow[] = [];
    const kept: string[] = [];
    for (const path of paths) {
      const side = (server: RunningProcess) => {
        let round = 0;
        return () =>
          measureServer(server.pid, {
            label: path.name,
            url: server.url,
            headers: path.headers,
            path: path.paths(round++),
            seconds: SECONDS,
            connections: CONNECTIONS,
            generator: 'wrk',
          });
      };
      const measured = await rotatingRounds(ROUNDS, {
        early: side(early),
        route: side(route),
        bare: side(bare),
      });
      const gain = ratioOf({ ours: measured.early, peer: measured.route }, (m) => m.rps);
      const earlyShare = ratioOf({ ours: measured.early, peer: measured.bare }, (m) => m.rps);
      const routeShare = ratioOf({ ours: measured.route, peer: measured.bare }, (m) => m.rps);
      // CPU per request moves less than throughput when the machine's load swings.
      const cpuGain = ratioOf(
        { ours: measured.route, peer: measured.early },
        (m) => m.cpuPerRequest ?? Number.NaN,
      );
      rows.push(
        {
          scenario: `${path.name}: early answer`,
          engine,
          measure: medianMeasure(measured.early),
          peer: 'its route alone (throughput)',
          ratio: gain,
          target: `≥ ${KEEP_AT} to keep it`,
          met: gain.median >= KEEP_AT,
        },
        {
          scenario: `${path.name}: early answer`,
          engine,
          measure: medianMeasure(measured.early),
          peer: "its route alone (the route's CPU per request over the early answer's)",
          ratio: cpuGain,
        },
        {
          scenario: `${path.name}: early answer`,
          engine,
          measure: medianMeasure(measured.early),
          peer: 'bare Fastify (throughput)',
          ratio: earlyShare,
        },
        {
          scenario: `${path.name}: route alone`,
          engine,
          measure: medianMeasure(measured.route),
          peer: 'bare Fastify (throughput)',
          ratio: routeShare,
        },
        {
          scenario: 'bare Fastify route answering `true`',
          engine: 'peer',
          measure: medianMeasure(measured.bare),
        },
      );
      kept.push(
        `- ${path.name}: ${gain.median >= KEEP_AT ? 'pays' : 'does not pay'} on ${engine} (${gain.median.toFixed(2)}×).`,
      );
    }
    return [
      `## Early answers (${engine})`,
      '',
      `Each hot endpoint through its two doors, on one ${engine === 'sqlite' ? 'SQLite' : 'PostgreSQL'} store: the service started twice from the same code, once with its early answers and once without (every request through its route), and a bare Fastify route answering \`true\`. wrk, ${CONNECTIONS} connections, ${SECONDS} s per round, ${ROUNDS} rounds in which every side runs once, each round starting with the next side, after an unmeasured warm-up; every side receives the same requests. An early answer is kept where it gives at least ${Math.round((KEEP_AT - 1) * 100)} % more throughput than its route on both engines (docs/decisions.md).`,
      '',
      comparisonTable(rows),
      '',
      ...kept,
    ].join('\n');
  } finally {
    for (const process of running.reverse()) await process.stop();
    await store.remove();
  }
}

export const earlyBenchmark: Benchmark = {
  name: 'early',
  run: earlyAnswers,
};
