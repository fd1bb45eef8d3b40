/**
 * Typeahead scenario: suggestions beside the peers a user could pick instead (a bare Fastify
 * route, Node's own HTTP server, Fastify over a Redis sorted set of the same terms), in
 * rotating rounds under wrk, against the bare route at 10, 50 and 100 connections; on SQLite
 * also the hourly job over a large seeded log with suggestions measured while it runs, and a
 * thousand full instances resident in the real service (plus in-process build times).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqliteFile } from '../src/storage/database.js';
import { EmbedTokens } from '../src/typeahead/embed-tokens.js';
import { type ComparisonRow, comparisonTable, type Measure, medianMeasure, ratioOf } from './compare.js';
import { createBenchStore, type Engine } from './engines.js';
import { percentile, root, rssMiB, seededRandom, startBare, startProcess, startService } from './lib.js';
import { rotatingRounds, sideByRound } from './measure.js';
import { RespClient } from './resp-client.js';
import type { Benchmark } from './run.js';
import { randomTerms } from './typeahead-data.js';
import { seededInstanceId, seededToken, seedInstances, seedSearchLog } from './typeahead-seed.js';
import { requireWrk } from './wrk.js';

const QUICK = process.env.BENCH_QUICK === '1';
const SECONDS = QUICK ? 3 : 10;
// An outside load generator saw the ratio to bare change with the connections it opened.
const CONNECTIONS = [10, 50, 100] as const;
const PEER_CONNECTIONS = 10;
const ROUNDS = 3;
const PASSWORD = 'bench-admin-password';
const SECRET_KEY = Buffer.alloc(32, 3);
const auth = `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`;
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const JOB_SEARCHES = QUICK ? 200_000 : 10_000_000;
const JOB_KEYS = QUICK ? 20_000 : 1_000_000;
const INSTANCES = QUICK ? 50 : 1000;

// biome-ignore lint/suspicious/noExplicitAny: answers of several endpoints, read field by field
async function call(url: string, method: string, body?: unknown): Promise<any> {
  const request = () =>
    fetch(url, {
      method,
      headers: { authorization: auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  // A connection left idle through a load round may be closed by the server (keep-alive
  // timeout) just as it is reused; such a request never reached the service.
  const response = await request().catch((error) => {
    if ((error as { cause?: { code?: string } }).cause?.code !== 'UND_ERR_SOCKET') throw error;
    return request();
  });
  if (response.status >= 300)
    throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Random 1-3 letter prefixes, the same sequence every run. */
function prefixPaths(seed: number): () => string {
  const random = seededRandom(seed);
  return () => {
    let p = '';
    const length = 1 + Math.floor(random() * 3);
    for (let i = 0; i < length; i++) p += LETTERS[Math.floor(random() * LETTERS.length)];
    return `/typeahead/suggestions?prefix=${p}`;
  };
}

/** Sequential requests (two at a time) until `done` settles; latencies in ms, sorted. */
async function latenciesWhile(url: string, headers: Record<string, string>, done: Promise<unknown>) {
  let finished = false;
  done.finally(() => {
    finished = true;
  });
  const path = prefixPaths(11);
  const latencies: number[] = [];
  const client = async () => {
    while (!finished) {
      const started = performance.now();
      const response = await fetch(`${url}${path()}`, { headers });
      await response.arrayBuffer();
      latencies.push(performance.now() - started);
    }
  };
  await Promise.all([client(), client()]);
  return latencies.sort((a, b) => a - b);
}

// As many curated terms as an instance may have.
const SERVED_TERMS = 4000;
const REDIS = { host: '127.0.0.1', port: 6379, key: 'searchdeck-bench-terms' };

/** Loads the terms into a Redis sorted set for the peer; undefined with the reason when Redis is not there. */
async function loadRedis(terms: readonly string[]): Promise<string | undefined> {
  let redis: RespClient;
  try {
    redis = await RespClient.open(REDIS.host, REDIS.port);
  } catch (error) {
    return `no Redis at ${REDIS.host}:${REDIS.port} (${(error as Error).message})`;
  }
  try {
    await redis.command(['DEL', REDIS.key]);
    for (let i = 0; i < terms.length; i += 500) {
      const members = terms.slice(i, i + 500).flatMap((term) => ['0', `${term.toLowerCase()}\0${term}`]);
      await redis.command(['ZADD', REDIS.key, ...members]);
    }
    return undefined;
  } finally {
    redis.close();
  }
}

/** Suggestions of the real service beside the peers, in rotating rounds, as table rows. */
async function suggestionsBesidePeers(engine: Engine): Promise<string[]> {
  const store = await createBenchStore(engine, 'typeahead');
  const service = await startService({
    ...store.env,
    SEARCHDECK_ADMIN_PASSWORD: PASSWORD,
    SEARCHDECK_SECRET_KEY: SECRET_KEY.toString('base64'),
  });
  const stops: Array<() => Promise<void>> = [() => service.stop()];
  try {
    const random = seededRandom(42);
    const created = await call(`${service.url}/api/typeahead/instances`, 'POST', {
      name: 'Bench',
      minCount: 1,
    });
    const api = `${service.url}/api/typeahead/instances/${created.id}`;
    const included = randomTerms(random, SERVED_TERMS);
    await call(`${api}/terms`, 'PUT', { included, excluded: [] });
    const counts = await call(`${api}/refresh`, 'POST');
    const headers = { authorization: `Embed ${created.embedToken}` };
    const url = `${service.url}/typeahead/suggestions`;
    const sample = (await (await fetch(url, { headers })).json()) as string[];

    const bare = await startBare(sample);
    stops.push(() => bare.stop());
    const raw = await startProcess(['--import', 'tsx', 'bench/raw-http-server.ts'], {
      BARE_BODY: JSON.stringify(sample),
    });
    stops.push(() => raw.stop());
    const redisMissing = await loadRedis(included);
    const redisPeer = redisMissing
      ? undefined
      : await startProcess(['--import', 'tsx', 'bench/redis-peer-server.ts'], {
          REDIS_HOST: REDIS.host,
          REDIS_PORT: String(REDIS.port),
          REDIS_KEY: REDIS.key,
        });
    if (redisPeer) stops.push(() => redisPeer.stop());

    // Every side gets the same requests: the same prefixes and the embed token header.
    const side = (pid: number, base: string, connections: number) =>
      sideByRound(
        pid,
        {
          label: base,
          url: `${base}/typeahead/suggestions`,
          headers,
          seconds: SECONDS,
          connections,
          generator: 'wrk',
        },
        (round) => prefixPaths(7 + round),
      );
    const sides: Record<string, () => Promise<Measure>> = {};
    for (const connections of CONNECTIONS) {
      sides[`ours@${connections}`] = side(service.pid, service.url, connections);
      sides[`bare@${connections}`] = side(bare.pid, bare.url, connections);
    }
    sides.raw = side(raw.pid, raw.url, PEER_CONNECTIONS);
    if (redisPeer) sides.redis = side(redisPeer.pid, redisPeer.url, PEER_CONNECTIONS);
    // Unmeasured first: the JIT, the answer cache and the connections warm up on every side.
    for (const warm of Object.values(sides)) await warm();
    const rounds = await rotatingRounds(ROUNDS, sides);
    const scenario = `suggestions, ${counts.served} terms, random 1-3 letter prefixes`;
    return [
      `One instance of ${counts.served} served suggestions (curated), ${engine === 'sqlite' ? 'SQLite' : 'PostgreSQL'} behind it. Load from wrk (2 threads, one list of random prefixes per round cycled through) at ${CONNECTIONS.join(', ')} connections for the service and the bare route, ${PEER_CONNECTIONS} for the other peers; ${SECONDS} s per round, ${ROUNDS} rounds in which every side at every connection count runs once, each round starting with the next side; figures are medians over the rounds, ratios the median (min–max) of the per-round ratios at the same connection count. Every side receives the same requests (the same random prefixes, the same \`Authorization: Embed\` header), so the load generator, which shares the cores, does the same work for each; the constant peers answer the default answer (${sample.length} strings) whatever the prefix, and the Redis peer holds the same terms as \`<lower-case>\\0<term>\` in one sorted set and answers the same prefixes over one pipelined connection.`,
      ...(redisMissing ? ['', `The Redis row is missing: ${redisMissing}.`] : []),
      '',
      comparisonTable(suggestionRows(scenario, engine, rounds, sample.length)),
      ...(QUICK ? ['', 'Quick mode (`BENCH_QUICK=1`): 3 s rounds.'] : []),
    ];
  } finally {
    for (const stop of stops.reverse()) await stop();
    await store.remove();
  }
}

/** The rows of the suggestions' rounds: per connection count against bare, then the other peers. */
function suggestionRows(
  scenario: string,
  engine: Engine,
  rounds: Record<string, Measure[]>,
  answerLength: number,
): ComparisonRow[] {
  const rows: ComparisonRow[] = [];
  for (const connections of CONNECTIONS) {
    const ours = rounds[`ours@${connections}`]!;
    const vsBare = { ours, peer: rounds[`bare@${connections}`]! };
    const throughput = ratioOf(vsBare, (m) => m.rps);
    const cpu = ratioOf(vsBare, (m) => m.cpuPerRequest ?? Number.NaN);
    const atCount = {
      scenario: `${scenario}, ${connections} connections`,
      engine,
      measure: medianMeasure(ours),
    };
    rows.push(
      {
        ...atCount,
        peer: 'bare Fastify (throughput)',
        ratio: throughput,
        target: '≥ 0.85 of bare throughput',
        met: throughput.median >= 0.85,
      },
      {
        ...atCount,
        peer: 'bare Fastify (CPU µs/req)',
        ratio: cpu,
        target: '≤ 1.25× bare CPU per request',
        met: cpu.median <= 1.25,
      },
    );
  }
  const ours = rounds[`ours@${PEER_CONNECTIONS}`]!;
  const atPeers = {
    scenario: `${scenario}, ${PEER_CONNECTIONS} connections`,
    engine,
    measure: medianMeasure(ours),
  };
  if (rounds.redis) {
    const vsRedis = ratioOf({ ours, peer: rounds.redis }, (m) => m.rps);
    rows.push({
      ...atPeers,
      peer: 'Fastify + Redis ZRANGEBYLEX (throughput)',
      ratio: vsRedis,
      target: '≥ 1.6× the Redis peer',
      met: vsRedis.median >= 1.6,
    });
  }
  rows.push({ ...atPeers, target: 'p99 ≤ 5 ms', met: atPeers.measure.p99 <= 5 });
  for (const connections of CONNECTIONS) {
    rows.push({
      scenario: `bare Fastify, constant ${answerLength} strings, ${connections} connections`,
      engine: 'peer',
      measure: medianMeasure(rounds[`bare@${connections}`]!),
    });
  }
  rows.push({
    scenario: `node:http, constant ${answerLength} strings, ${PEER_CONNECTIONS} connections`,
    engine: 'peer',
    measure: medianMeasure(rounds.raw!),
  });
  if (rounds.redis) {
    rows.push({
      scenario: `Fastify + Redis ZRANGEBYLEX, same terms and prefixes, ${PEER_CONNECTIONS} connections`,
      engine: 'peer',
      measure: medianMeasure(rounds.redis),
    });
  }
  return rows;
}

/** The top-searched job over a large log seeded straight into SQLite, with suggestions measured while it runs. */
async function jobWhileServing(): Promise<string[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'searchdeck-bench-'));
  const service = await startService({ SEARCHDECK_DATA_DIR: dataDir, SEARCHDECK_ADMIN_PASSWORD: PASSWORD });
  try {
    const random = seededRandom(42);
    const created = await call(`${service.url}/api/typeahead/instances`, 'POST', {
      name: 'Bench',
      minCount: 1,
    });
    await call(`${service.url}/api/typeahead/instances/${created.id}/terms`, 'PUT', {
      included: randomTerms(random, 3900),
      excluded: randomTerms(random, 100),
    });
    const headers = { authorization: `Embed ${created.embedToken}` };
    const job = await call(`${service.url}/api/typeahead/instances`, 'POST', { name: 'Job', minCount: 1 });
    const seedStarted = performance.now();
    const seeded = seedSearchLog(sqliteFile(dataDir), job.id, {
      searches: JOB_SEARCHES,
      keys: JOB_KEYS,
      hours: 28 * 24,
      now: new Date(),
      seed: 9,
    });
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    const jobStarted = performance.now();
    const refresh = call(`${service.url}/api/typeahead/instances/${job.id}/refresh`, 'POST').then(
      (answer) => ({ answer, seconds: (performance.now() - jobStarted) / 1000 }),
    );
    const during = await latenciesWhile(service.url, headers, refresh);
    const { answer: jobCounts, seconds: jobSeconds } = await refresh;
    const rss = rssMiB(service.pid);
    return [
      `- Top-searched job over ${JOB_SEARCHES.toLocaleString('en')} logged searches, ${JOB_KEYS.toLocaleString('en')} distinct keys in ${seeded.rows.toLocaleString('en')} hourly buckets over 28 days (seeded straight into SQLite in ${seedSeconds.toFixed(0)} s): ${jobSeconds.toFixed(1)} s, ${jobCounts.topSearched} top-searched terms.`,
      `- Suggestions while the job ran (2 clients in a loop, ${during.length} requests): p50 ${percentile(during, 50).toFixed(1)} ms, p99 ${percentile(during, 99).toFixed(1)} ms, max ${during[during.length - 1]!.toFixed(1)} ms.`,
      `- Service RSS after the job: ${rss} MiB.`,
    ];
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function residentInstances(): Promise<string[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'searchdeck-bench-'));
  const env = {
    SEARCHDECK_DATA_DIR: dataDir,
    SEARCHDECK_ADMIN_PASSWORD: PASSWORD,
    SEARCHDECK_SECRET_KEY: SECRET_KEY.toString('base64'),
  };
  // A first start migrates the empty database; the instances are seeded while it is down.
  await (await startService(env)).stop();
  const seedStarted = performance.now();
  seedInstances(sqliteFile(dataDir), {
    count: INSTANCES,
    included: 4000,
    topSearched: 1000,
    tokens: new EmbedTokens(SECRET_KEY),
    now: new Date(),
  });
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  const service = await startService(env);
  try {
    const idle = rssMiB(service.pid);
    const touched = performance.now();
    const firstTouch: number[] = [];
    for (let i = 0; i < INSTANCES; i++) {
      const started = performance.now();
      const response = await fetch(`${service.url}/typeahead/suggestions?prefix=b`, {
        headers: { authorization: `Embed ${seededToken(i)}`, host: `${seededInstanceId(i)}.bench.test` },
      });
      if (response.status !== 200)
        throw new Error(`instance ${i}: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
      firstTouch.push(performance.now() - started);
    }
    const touchSeconds = (performance.now() - touched) / 1000;
    const metrics = await (
      await fetch(`${service.url}/metrics`, { headers: { authorization: auth } })
    ).text();
    const resident = /searchdeck_typeahead_indexes_resident (\d+)/.exec(metrics)?.[1];
    const suggestions = /searchdeck_typeahead_suggestions_resident (\d+)/.exec(metrics)?.[1];
    const rss = rssMiB(service.pid);
    firstTouch.sort((a, b) => a - b);
    return [
      `- ${INSTANCES.toLocaleString('en')} instances of 4,000 curated + 1,000 top-searched terms, seeded into SQLite in ${seedSeconds.toFixed(0)} s, served by the real service: ${resident} indexes resident holding ${Number(suggestions).toLocaleString('en')} suggestions; RSS ${rss} MiB (${idle} MiB right after start, while it was still warming). Touching each once took ${touchSeconds.toFixed(1)} s (first request per instance p50 ${percentile(firstTouch, 50).toFixed(1)} ms, p99 ${percentile(firstTouch, 99).toFixed(1)} ms, max ${firstTouch[firstTouch.length - 1]!.toFixed(0)} ms; an instance not warmed yet is built on that request).`,
    ];
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export const typeaheadBenchmark: Benchmark = {
  name: 'typeahead',
  async run(engine) {
    requireWrk();
    const main = await suggestionsBesidePeers(engine);
    if (engine !== 'sqlite') {
      return [
        '## Typeahead',
        '',
        ...main,
        '',
        'The job over a seeded log and the thousand resident instances are measured on SQLite only: their seeders write SQLite files, and the suggestions are answered from memory on either engine.',
      ].join('\n');
    }
    const job = await jobWhileServing();
    const resident = await residentInstances();
    const index = execFileSync(process.execPath, ['--import', 'tsx', 'bench/typeahead-index.ts', '100'], {
      cwd: root,
      encoding: 'utf8',
    });
    return [
      '## Typeahead',
      '',
      ...main,
      '',
      ...job,
      ...resident,
      '',
      'Index build, query cost and memory in process (`bench/typeahead-index.ts`, 100 instances):',
      '',
      '```',
      index.trim(),
      '```',
      '',
      'Other targets (spec): 1,000 instances of 5,000 terms ≤ 1 GiB RSS, an index built in ≤ 20 ms; the job over 10,000,000 searches / 1,000,000 keys ≤ 15 s with concurrent suggestions p99 ≤ 20 ms. Ingestion is measured in its own scenario.',
    ].join('\n');
  },
};
