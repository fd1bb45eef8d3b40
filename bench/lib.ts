import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { wrkLoad } from './wrk.js';

export const root = fileURLToPath(new URL('..', import.meta.url));

/** A figure in the tables: grouped thousands, at most `digits` decimals. */
export const fmt = (n: number, digits = 1) => n.toLocaleString('en-US', { maximumFractionDigits: digits });

export interface LoadResult {
  label: string;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

export interface LoadOptions {
  label: string;
  url: string;
  headers?: Record<string, string>;
  /** A path per request (varying the query); defaults to the URL's own path. */
  path?: () => string;
  seconds?: number;
  connections?: number;
  /**
   * autocannon (the default) or wrk: a hot path compared with a bare route needs wrk, since
   * autocannon's own ceiling caps the bare route (bench/wrk.ts).
   */
  generator?: 'autocannon' | 'wrk';
  /** With wrk: how many requests of `path` it cycles through. */
  distinctPaths?: number;
}

/** Drives one URL and reports throughput and latency percentiles (ms). */
export async function load(options: LoadOptions): Promise<LoadResult> {
  if (options.generator === 'wrk') return wrkLoad(options);
  const result = await autocannon({
    url: options.url,
    connections: options.connections ?? 10,
    duration: options.seconds ?? 10,
    headers: options.headers,
    ...(options.path
      ? {
          requests: [
            {
              setupRequest: (request: { path: string }) => {
                request.path = options.path!();
                return request;
              },
            },
          ],
        }
      : {}),
  } as autocannon.Options);
  return {
    label: options.label,
    requests: result.requests.total,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

export interface RunningProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts a node script (built JS or TypeScript through tsx) and waits for its listening line. */
export async function startProcess(
  args: string[],
  env: Record<string, string>,
  listening = /listening at (http:\/\/[\d.]+:\d+)/i,
): Promise<RunningProcess> {
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not start:\n${output}`)), 120_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.length > 100_000) output = output.slice(-50_000);
      const match = listening.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', () => reject(new Error(`exited:\n${output}`)));
  });
  let stopping = false;
  // A process that dies mid-scenario shows up as refused connections; say why it died.
  child.once('exit', (code, signal) => {
    if (!stopping) process.stderr.write(`${args.join(' ')} exited (${code ?? signal}):\n${output}\n`);
  });
  return {
    url,
    pid: child.pid!,
    stop: () =>
      new Promise((resolve) => {
        stopping = true;
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** The built service (`npm run build` first), quiet, on a free port. */
export function startService(env: Record<string, string>): Promise<RunningProcess> {
  return startProcess(
    [
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
      'dist/src/main.js',
      'serve',
      '--port',
      '0',
    ],
    { SEARCHDECK_LOG_LEVEL: 'warn', ...env },
    /listening at (http:\/\/[\d.]+:\d+)/i,
  );
}

/** The baseline: a bare Fastify route answering a constant JSON body of the given size. */
export function startBare(body: unknown): Promise<RunningProcess> {
  return startProcess(['--import', 'tsx', 'bench/bare-server.ts'], { BARE_BODY: JSON.stringify(body) });
}

/** Resident memory of a process in MiB. */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

/** Deterministic pseudo-random numbers, so data sets are the same every run. */
export { seededRandom } from '../src/demo/seeded-random.js';

/** A markdown table of load results, with each row's throughput relative to the baseline row. */
export function loadTable(results: LoadResult[], baseline?: LoadResult): string {
  const head =
    '| scenario | req/s | p50 ms | p99 ms | errors | non-2xx | vs bare route |\n|---|---:|---:|---:|---:|---:|---:|';
  const rows = results.map(
    (r) =>
      `| ${r.label} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.non2xx} | ${
        baseline ? (r.rps / baseline.rps).toFixed(2) : ''
      } |`,
  );
  return [head, ...rows].join('\n');
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** CPU time a process has used so far, in microseconds (user + system, from /proc). */
export function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of the file, in ticks of 1/100 s on Linux.
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** Runs a load and also reports the server's CPU time per answered request (µs). */
export async function loadWithCpu(
  pid: number,
  options: LoadOptions,
): Promise<LoadResult & { cpuPerRequest: number }> {
  const before = cpuMicros(pid);
  const result = await load(options);
  return { ...result, cpuPerRequest: (cpuMicros(pid) - before) / Math.max(1, result.requests) };
}

export function median(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

/** An access token of the service for an API client (the client-credentials grant). */
export async function tokenOf(
  url: string,
  client: { clientId: string; clientSecret: string },
): Promise<string> {
  const response = await fetch(`${url}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: client.clientSecret,
    }),
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

/**
 * The floor of a route that reads the database once per request (bench/point-read-peer.ts):
 * `sql` with $1 … bound to the request's query parameters (`{ query }`) or constants (`{ value }`).
 */
export function startPointRead(
  store: { sqliteFile?: string | undefined; postgresUrl?: string | undefined },
  sql: string,
  values: Array<{ query: string } | { value: string }>,
  body?: unknown,
): Promise<RunningProcess> {
  return startProcess(['--import', 'tsx', 'bench/point-read-peer.ts'], {
    PEER_SQL: sql,
    PEER_VALUES: JSON.stringify(values),
    ...(store.sqliteFile
      ? { PEER_SQLITE_FILE: store.sqliteFile }
      : { PEER_POSTGRES_URL: store.postgresUrl! }),
    ...(body === undefined ? {} : { BARE_BODY: JSON.stringify(body) }),
  });
}
