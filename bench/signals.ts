/**
 * Signals scenario: ingestion of 1,000-signal batches from 4 senders beside a raw insert of
 * the same rows; every analytics answer over 30 days of rollups (1,000,000 searches a day by
 * default, seeded straight into the rollup tables); the event loop while one hour of raw rows
 * is rolled; and the disk a million raw signals take. `BENCH_QUICK=1` or
 * `BENCH_SIGNALS_PER_DAY=<searches>` make it small; `BENCH_SIGNALS_PARTS=ingestion` (a comma
 * list of `answers`, `ingestion`, `rollup`) runs only those parts.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pino from 'pino';
import { Registry } from 'prom-client';
import { AnalyticsRollup, ROLLUP_JOB } from '../src/analytics/rollup-job.js';
import { JobMetrics } from '../src/jobs/job-metrics.js';
import { openStore } from '../src/storage/database.js';
import { createBenchStore, type Engine } from './engines.js';
import { fmt, percentile, seededRandom, startService } from './lib.js';
import type { Benchmark } from './run.js';
import {
  APP,
  PROFILE,
  postgresWriter,
  SIGNAL_COLUMNS,
  seedRawHour,
  seedRollups,
  signalBatch,
  sqliteWriter,
  type Writer,
} from './signals-data.js';

const QUICK = process.env.BENCH_QUICK === '1';
const PER_DAY = Number(process.env.BENCH_SIGNALS_PER_DAY ?? (QUICK ? 10_000 : 1_000_000));
const DAYS = 30;
const BATCH = 1000;
const SENDERS = 4;
const BATCHES = QUICK ? 8 : 100;
const REQUESTS = QUICK ? 10 : 100;
const PARTS = new Set(
  (process.env.BENCH_SIGNALS_PARTS ?? 'answers,ingestion,rollup').split(',').map((p) => p.trim()),
);
const CHANGES = QUICK ? 3 : 10;
const PASSWORD = 'bench-admin-password';
const SECRET_KEY = Buffer.alloc(32, 5).toString('base64');
const auth = `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`;
const DAY = 86_400_000;

async function call(url: string, method: string, body?: unknown): Promise<Response> {
  return fetch(url, {
    method,
    headers: { authorization: auth, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}

/** `senders` concurrent loops taking the next batch until none is left; signals per second. */
async function concurrently(
  batches: number,
  senders: number,
  send: (i: number) => Promise<void>,
): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: senders }, async () => {
      for (let i = next++; i < batches; i = next++) await send(i);
    }),
  );
  return (batches * BATCH) / ((performance.now() - started) / 1000);
}

/** Gives today's rollups a new change token, as the rollup does every few seconds on a busy shop. */
function touchToday(writer: Writer, version: number): Promise<void> {
  const today = Date.now() - (Date.now() % DAY);
  return writer.execute(
    `insert into analytics_day_version (app, profile_id, day, version) values ('${APP}', '${PROFILE}', ${today}, ${version}) on conflict (app, profile_id, day) do update set version = excluded.version`,
  );
}

/**
 * Each answer's first request (the first of its kind of rows reads them all: the others of the
 * same kind are answered from what it left in memory), the steady state, and requests right
 * after today's rows changed (today read again, the rest from memory).
 */
async function answers(url: string, writer: Writer): Promise<string> {
  const today = new Date(Date.now() - (Date.now() % DAY));
  const start = new Date(today.getTime() - (DAYS - 1) * DAY).toISOString().slice(0, 10);
  const range = `startDate=${start}&endDate=${today.toISOString().slice(0, 10)}`;
  const paths = [
    '/searches',
    '/searches?limit=1000',
    '/searches/no-results',
    '/searches/no-clicks',
    '/rates',
    '/rates?interval=hour',
    '/rules',
    '/documents',
    '/documents?limit=1000',
  ];
  const lines = [
    '| answer (30 days) | first request ms | p50 ms | p95 ms | target p95 ≤ 100 ms | after today changed: p50 ms | max ms |',
    '|---|---:|---:|---:|---|---:|---:|',
  ];
  let version = 1;
  for (const path of paths) {
    const full = `${url}/api/apps/${APP}/analytics/${PROFILE}${path}${path.includes('?') ? '&' : '?'}${range}`;
    const timed = async () => {
      const started = performance.now();
      const response = await call(full, 'GET');
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
      return performance.now() - started;
    };
    const first = await timed();
    const times: number[] = [];
    for (let i = 0; i < REQUESTS + 2; i++) {
      const ms = await timed();
      if (i >= 2) times.push(ms);
    }
    const changed: number[] = [];
    for (let i = 0; i < CHANGES; i++) {
      await touchToday(writer, version++);
      changed.push(await timed());
    }
    times.sort((a, b) => a - b);
    changed.sort((a, b) => a - b);
    const p95 = percentile(times, 95);
    lines.push(
      `| \`${path}\` | ${fmt(first)} | ${fmt(percentile(times, 50))} | ${fmt(p95)} | ${p95 <= 100 ? 'met' : 'missed'} | ${fmt(percentile(changed, 50))} | ${fmt(changed[changed.length - 1]!)} |`,
    );
  }
  return lines.join('\n');
}

async function ingestion(url: string, writer: Writer): Promise<string> {
  const random = seededRandom(3);
  const now = Date.now();
  const batches = Array.from({ length: BATCHES }, (_, i) => signalBatch(random, i, BATCH, now));
  const anchor = await concurrently(BATCHES, SENDERS, (i) =>
    writer.insert('signal', SIGNAL_COLUMNS, batches[i]!.rows),
  );
  const bytes = await writer.bytes(['signal']);
  const perMillion = (bytes / (BATCHES * BATCH)) * 1e6;
  const lines = [
    `Raw anchor: ${fmt(anchor, 0)} signals/s (the same rows inserted straight through the driver, one transaction per batch, ${SENDERS} senders).`,
    `Disk: ${fmt(perMillion / 2 ** 20, 0)} MiB per million raw signals (table and indexes).`,
  ];
  const endpoint = `${url}/api/apps/${APP}/signals/products`;
  const probe = await call(endpoint, 'POST', batches[0]!.body);
  if (probe.status === 404 || probe.status === 405) {
    lines.unshift(
      `Ingestion through \`POST /api/apps/{app}/signals/{collection}\`: **skipped**, the route is not in this build (${probe.status}).`,
    );
    return lines.join('\n\n');
  }
  if (probe.status >= 300) {
    lines.unshift(
      `Ingestion: **skipped**, the route refused the bench's batch (${probe.status} ${(await probe.text()).slice(0, 200)}); the bench's body needs the route's shape.`,
    );
    return lines.join('\n\n');
  }
  await probe.arrayBuffer();
  const ours = await concurrently(BATCHES, SENDERS, async (i) => {
    const response = await call(endpoint, 'POST', batches[i]!.body);
    await response.arrayBuffer();
    if (response.status >= 300) throw new Error(`batch ${i}: ${response.status}`);
  });
  const ratio = ours / anchor;
  lines.unshift(
    `Ingestion through the route: ${fmt(ours, 0)} signals/s, ${fmt(ratio, 2)} of the raw anchor (target ≥ 0.7: ${ratio >= 0.7 ? 'met' : 'missed'}).`,
  );
  return lines.join('\n\n');
}

/** One roll of the current hour's raw rows in this process, with the event loop watched. */
async function rollup(env: Record<string, string>, writer: Writer): Promise<string> {
  const perHour = Math.round(PER_DAY / 24);
  await seedRawHour(writer, perHour, Date.now());
  const store = openStore({ dataDir: env.SEARCHDECK_DATA_DIR!, databaseUrl: env.SEARCHDECK_DATABASE_URL });
  const metrics = new Registry();
  const now = () => new Date();
  const job = new AnalyticsRollup({
    store,
    metrics,
    jobs: new JobMetrics(metrics, now),
    log: pino({ level: 'silent' }),
    now,
    retentionDays: 396,
  });
  try {
    const watched = async () => {
      const delay = monitorEventLoopDelay({ resolution: 1 });
      delay.enable();
      const started = performance.now();
      await job.rollChanged();
      delay.disable();
      return { ms: performance.now() - started, maxMs: delay.max / 1e6 };
    };
    // The first roll of a process also loads and compiles what it uses; the later ones are the job's steady state.
    const first = await watched();
    await seedRawHour(writer, Math.max(1, Math.round(perHour / 720)), Date.now(), 'late');
    const again = await watched();
    const unchanged = await watched();
    const verdict = (ms: number) => (ms <= 20 ? 'met' : 'missed');
    return [
      '| roll of the current hour (' +
        fmt(perHour, 0) +
        ' raw searches, a third clicked) | ms | longest event-loop delay ms | target ≤ 20 ms |',
      '|---|---:|---:|---|',
      `| first roll of the process | ${fmt(first.ms, 0)} | ${fmt(first.maxMs)} | ${verdict(first.maxMs)} |`,
      `| again after 5 s of new searches | ${fmt(again.ms, 0)} | ${fmt(again.maxMs)} | ${verdict(again.maxMs)} |`,
      `| again, nothing new | ${fmt(unchanged.ms, 0)} | ${fmt(unchanged.maxMs)} | ${verdict(unchanged.maxMs)} |`,
      `\nDisk: ${fmt((((await writer.bytes(['search_signal'])) / perHour) * 1e6) / 2 ** 20, 0)} MiB per million raw searches (response signals, table and indexes).`,
    ].join('\n');
  } finally {
    await store.close();
  }
}

export const signalsBenchmark: Benchmark = {
  name: 'signals',
  async run(engine: Engine): Promise<string> {
    const store = await createBenchStore(engine, 'signals');
    const writer = engine === 'sqlite' ? sqliteWriter(store.sqliteFile!) : postgresWriter(store.postgresUrl!);
    try {
      // The rollups only the answers read; the rollup part seeds its own raw hour.
      const seeded = PARTS.has('answers') ? await seedRollups(writer, PER_DAY, DAYS, Date.now()) : 0;
      await store.analyze();
      // Another node holds the rollup's lease, so the service measured does not roll. The seeded
      // rollups have no raw rows behind them: a roll of their recent hours would count those
      // rows gone, rewrite the last days and give them new change tokens while the answers are
      // timed. What a roll costs is the rollup part's to measure, and what a changed day costs
      // the answers, the column after today changed.
      const until = new Date(Date.now() + 3 * 3_600_000).toISOString();
      await writer.execute(
        `insert into job_lease (name, holder, expires_at) values ('${ROLLUP_JOB}', 'rolling-node', '${until}')`,
      );
      const service = await startService({
        ...store.env,
        SEARCHDECK_ADMIN_PASSWORD: PASSWORD,
        SEARCHDECK_SECRET_KEY: SECRET_KEY,
      });
      let served: string[];
      try {
        for (const [path, body] of [
          [`/api/apps/${APP}/searchCluster/solr`, { id: 'solr', connectString: '127.0.0.1:2181/solr' }],
          [`/api/apps/${APP}/query-profiles/${PROFILE}`, { searchCluster: 'solr', collection: 'products' }],
        ] as const) {
          const response = await call(`${service.url}${path}`, 'PUT', body);
          if (response.status >= 300) throw new Error(`${path}: ${response.status} ${await response.text()}`);
        }
        served = [
          PARTS.has('answers')
            ? await answers(service.url, writer)
            : 'Answers: not run (`BENCH_SIGNALS_PARTS`).',
          PARTS.has('ingestion')
            ? await ingestion(service.url, writer)
            : 'Ingestion: not run (`BENCH_SIGNALS_PARTS`).',
        ];
      } finally {
        await service.stop();
      }
      const rolled = PARTS.has('rollup')
        ? await rollup(store.env, writer)
        : 'Rollup: not run (`BENCH_SIGNALS_PARTS`).';
      return [
        `### Signals and analytics (${engine})`,
        `${fmt(PER_DAY, 0)} searches a day over ${DAYS} days, as ${fmt(seeded, 0)} rollup rows seeded straight into the tables; ${REQUESTS} requests per answer, one at a time. The service measured does not roll: another node holds the rollup's lease, as the seeded rollups have no raw rows behind them (a roll of their recent hours would take those rows for gone).`,
        ...served,
        rolled,
      ].join('\n\n');
    } finally {
      await writer.close();
      await store.remove();
    }
  },
};
