/**
 * Ingestion scenario: `POST …/search-logs` in batches of 1,000 from 4 concurrent senders,
 * beside the raw anchor (the same rows upserted straight through the driver, one transaction
 * per batch), in alternating rounds, on a mostly distinct and on a skewed set of queries.
 */

import {
  alternate,
  type ComparisonRow,
  comparisonTable,
  type Measure,
  medianMeasure,
  ratioOf,
} from './compare.js';
import { createBenchStore, type Engine } from './engines.js';
import { type BatchRows, batchRows, postgresAnchor, sqliteAnchor } from './ingestion-anchor.js';
import { cpuMicros, percentile, type RunningProcess, rssMiB, seededRandom, startService } from './lib.js';
import type { Benchmark } from './run.js';
import { randomTerms } from './typeahead-data.js';

const QUICK = process.env.BENCH_QUICK === '1';
const BATCH = 1000;
const SENDERS = 4;
const BATCHES = QUICK ? 20 : 100;
const ROUNDS = QUICK ? 2 : 4;
const PASSWORD = 'bench-admin-password';
// PostgreSQL needs the key all nodes share; any fixed one does for a bench.
const SECRET_KEY = Buffer.alloc(32, 5).toString('base64');
const auth = `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`;
const TARGET = 0.7;

interface DataSet {
  name: string;
  /** Each batch as the request body the senders post. */
  bodies: string[];
  batches: string[][];
}

/** Mostly distinct queries (nearly every search a new key), and a skewed set (10 searches per query, popular ones more). */
function dataSets(): DataSet[] {
  const random = seededRandom(21);
  const total = BATCH * BATCHES;
  const distinct = randomTerms(random, total);
  const vocabulary = randomTerms(random, total / 10);
  const skewed = Array.from(
    { length: total },
    () => vocabulary[Math.floor(random() ** 2 * vocabulary.length)]!,
  );
  return [
    { name: 'mostly distinct', queries: distinct },
    { name: 'skewed, 10 per query', queries: skewed },
  ].map(({ name, queries }) => {
    const batches = Array.from({ length: BATCHES }, (_, i) => queries.slice(i * BATCH, (i + 1) * BATCH));
    return { name, batches, bodies: batches.map((b) => JSON.stringify(b.map((query) => ({ query })))) };
  });
}

async function call(url: string, method: string, body?: unknown): Promise<{ id: string }> {
  const response = await fetch(url, {
    method,
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify(body ?? {}),
  });
  if (response.status >= 300)
    throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as { id: string };
}

/** A fresh instance for each side of each round, so that every round writes the same new rows. */
async function newInstance(service: RunningProcess): Promise<string> {
  return (await call(`${service.url}/api/typeahead/instances`, 'POST', { name: 'Ingestion', minCount: 1 }))
    .id;
}

/** The batches posted by `SENDERS` concurrent senders; errors are answers other than 202 and failed requests. */
async function throughService(service: RunningProcess, id: string, set: DataSet): Promise<Measure> {
  const url = `${service.url}/api/typeahead/instances/${id}/search-logs`;
  const headers = { authorization: auth, 'content-type': 'application/json' };
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const sender = async () => {
    while (next < set.bodies.length) {
      const body = set.bodies[next++]!;
      const at = performance.now();
      try {
        const response = await fetch(url, { method: 'POST', headers, body });
        await response.arrayBuffer();
        if (response.status !== 202) errors++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - at);
    }
  };
  const cpu = cpuMicros(service.pid);
  const started = performance.now();
  await Promise.all(Array.from({ length: SENDERS }, sender));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    rps: (set.bodies.length * BATCH) / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
    cpuPerRequest: (cpuMicros(service.pid) - cpu) / set.bodies.length,
    rssMiB: rssMiB(service.pid),
  };
}

async function rowsFor(engine: Engine, set: DataSet, rounds: number): Promise<ComparisonRow[]> {
  const store = await createBenchStore(engine, 'ingestion');
  const service = await startService({
    ...store.env,
    SEARCHDECK_ADMIN_PASSWORD: PASSWORD,
    SEARCHDECK_SECRET_KEY: SECRET_KEY,
  });
  try {
    const rows: BatchRows[] = set.batches.map((batch) => batchRows(batch, new Date()));
    const peer = async () => {
      const id = await newInstance(service);
      return store.sqliteFile
        ? sqliteAnchor(store.sqliteFile, id, rows)
        : postgresAnchor(store.postgresUrl!, id, rows, SENDERS);
    };
    const ours = async () => throughService(service, await newInstance(service), set);
    const result = await alternate(rounds, ours, peer);
    const ratio = ratioOf(result, (m) => m.rps);
    const peerName = engine === 'sqlite' ? 'raw better-sqlite3' : 'raw pg';
    const scenario = `search logs, ${set.name}`;
    const ourMeasure = medianMeasure(result.ours);
    return [
      {
        scenario,
        engine,
        measure: ourMeasure,
        peer: peerName,
        ratio,
        target: `≥ ${TARGET.toFixed(2)} of raw, no errors`,
        met: ratio.median >= TARGET && ourMeasure.errors === 0,
      },
      { scenario, engine: peerName, measure: medianMeasure(result.peer) },
    ];
  } finally {
    await service.stop();
    await store.remove();
  }
}

export const ingestionBenchmark: Benchmark = {
  name: 'ingestion',
  async run(engine) {
    const rows: ComparisonRow[] = [];
    for (const set of dataSets()) rows.push(...(await rowsFor(engine, set, ROUNDS)));
    return [
      `## Ingestion (${engine})`,
      '',
      `\`POST …/search-logs\` with JSON batches of ${BATCH.toLocaleString('en')} queries (no timestamp: the current hour), ${SENDERS} concurrent senders over keep-alive connections, ${BATCHES} batches per round, ${ROUNDS} rounds alternating with the raw anchor; every side of every round writes into a fresh instance. The raw anchor upserts the very rows the service derives from each batch (keyed beforehand, outside its timing), one transaction per batch as the service commits them: better-sqlite3 with one prepared upsert per row on the service's own file and settings, or pg with one multi-row \`INSERT … ON CONFLICT\` per table over ${SENDERS} connections. The req/s column counts logged searches per second; p50/p99 are per batch; CPU µs/req is the service process's per batch (for the anchor, the bench process's).`,
      '',
      comparisonTable(rows),
    ].join('\n');
  },
};
