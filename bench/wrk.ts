// wrk as the load generator of the hot-path comparisons. autocannon is one JavaScript process
// sharing the machine's cores with the server, and near 45-50k requests per second it is its own
// ceiling: a fast peer cannot go faster than the generator, which squeezes every ratio toward 1.
// wrk is C on its own threads and costs the cores a fraction of that (docs/decisions.md).
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadOptions, LoadResult } from './lib.js';

/** Requests of a scenario's path stream that wrk cycles through, unless it says otherwise. */
const DISTINCT_PATHS = 50_000;
/** Generator threads: as many as the machine the bench was written for has cores. */
const THREADS = 2;

// Each thread builds every request once (init), starts at its own share of the list and
// cycles through it; done() prints the figures as one JSON line after wrk's own report.
const SCRIPT = `
local requests = {}
local at = 1
local nthreads = 0

function setup(thread)
  thread:set("id", nthreads)
  nthreads = nthreads + 1
end

function init(args)
  for path in io.lines(args[1]) do
    requests[#requests + 1] = wrk.format(nil, path)
  end
  at = math.floor(id * #requests / tonumber(args[2])) + 1
end

function request()
  local r = requests[at]
  at = at % #requests + 1
  return r
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '\\n{"requests":%.0f,"duration":%.0f,"p50":%.0f,"p99":%.0f,"status":%.0f,"socket":%.0f}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.status, e.connect + e.read + e.write + e.timeout))
end
`;

interface WrkFigures {
  requests: number;
  /** µs */
  duration: number;
  /** µs */
  p50: number;
  /** µs */
  p99: number;
  /** Answers of status 400 or above (wrk counts no others as failures). */
  status: number;
  /** Connect, read and write errors and timeouts. */
  socket: number;
}

/**
 * Drives one URL with wrk and answers the figures `load()` answers. The requests cycle through
 * the first `distinctPaths` paths of `options.path` (the same list for the same stream).
 */
export async function wrkLoad(options: LoadOptions): Promise<LoadResult> {
  const connections = options.connections ?? 10;
  const threads = Math.min(THREADS, connections);
  const base = new URL(options.url);
  const paths = options.path
    ? Array.from({ length: options.distinctPaths ?? DISTINCT_PATHS }, options.path)
    : [base.pathname + base.search];
  const dir = mkdtempSync(join(tmpdir(), 'searchdeck-wrk-'));
  try {
    const script = join(dir, 'paths.lua');
    const list = join(dir, 'paths.txt');
    writeFileSync(script, SCRIPT);
    writeFileSync(list, `${paths.join('\n')}\n`);
    const headers = Object.entries(options.headers ?? {}).flatMap(([name, value]) => [
      '-H',
      `${name}: ${value}`,
    ]);
    const args = [
      ...['-t', String(threads), '-c', String(connections), '-d', `${options.seconds ?? 10}s`],
      ...['--timeout', '10s', '-s', script, ...headers, base.origin, '--', list, String(threads)],
    ];
    const figures = parseFigures(await run(args));
    const ms = (micros: number) => micros / 1000;
    return {
      label: options.label,
      requests: figures.requests,
      rps: figures.requests / (figures.duration / 1e6),
      p50: ms(figures.p50),
      p99: ms(figures.p99),
      errors: figures.socket,
      non2xx: figures.status,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const MISSING = 'this scenario drives its load with wrk, which is not installed (apt package `wrk`)';

/** Fails at once when wrk is missing, before a scenario spends minutes on its set-up. */
export function requireWrk(): void {
  if ((spawnSync('wrk', ['-v']).error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT')
    throw new Error(MISSING);
}

function run(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('wrk', args, { maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if ((error as NodeJS.ErrnoException | null)?.code === 'ENOENT') reject(new Error(MISSING));
      else if (error) reject(new Error(`wrk ${args.join(' ')}: ${error.message}\n${stdout}${stderr}`));
      else resolve(stdout);
    });
  });
}

function parseFigures(stdout: string): WrkFigures {
  const line = stdout
    .trim()
    .split('\n')
    .findLast((l) => l.startsWith('{'));
  if (line === undefined) throw new Error(`wrk printed no figures:\n${stdout}`);
  return JSON.parse(line) as WrkFigures;
}
