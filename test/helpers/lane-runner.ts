// Runs the test files in a few long-lived processes ("lanes") instead of one process per
// file. A process costs seconds before its first test (the TypeScript loader, the service's
// modules, the first compile of its schemas); with over a hundred files that was a third of
// the suite's time. Each lane claims the next file nobody has claimed, imports it, and waits
// until its tests and hooks are done before claiming the next, so the files of one lane never
// overlap and the lanes stay busy until the last file. Files are claimed longest first, by
// the durations of the previous run when there is one (see durations-reporter.mjs).
//
// A file that runs past FILE_LIMIT_MS ends its lane with a message naming it, as the
// runner's per-file timeout did when each file had its own process.
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { solrSkipReason, testSolr } from './solr.js';
import { removeStaleRuns, runDirectory } from './test-run.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const FILE_LIMIT_MS = 300_000;

/** Where the durations reporter leaves each file's duration of the last run. */
export const durationsFile = join(root, 'node_modules', '.cache', 'searchdeck', 'test-durations.json');

/** Every test file, longest first (by the last run's durations, else by size). */
export function testFiles(): string[] {
  const files = readdirSync(join(root, 'test'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((dir) =>
      readdirSync(join(root, 'test', dir.name))
        .filter((name) => name.endsWith('.test.ts'))
        .map((name) => join(root, 'test', dir.name, name)),
    );
  // `TEST_ONLY=console/` runs the files whose path holds it, through the lanes as the suite does.
  const only = process.env.TEST_ONLY;
  if (only) files.splice(0, files.length, ...files.filter((file) => relative(root, file).includes(only)));
  const last = lastDurations();
  const cost = (file: string) => last.get(relative(root, file)) ?? statSync(file).size;
  return files.sort((a, b) => cost(b) - cost(a) || a.localeCompare(b));
}

/**
 * Each file's duration in the last run here, else in a run recorded in the repository
 * (`test/run/durations.json`, for a fresh clone such as CI's): without them the files would be
 * claimed by size, and one long file claimed last keeps the other lane waiting for it.
 */
function lastDurations(): Map<string, number> {
  for (const file of [durationsFile, recordedDurationsFile]) {
    try {
      return new Map(Object.entries(JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>));
    } catch {}
  }
  return new Map();
}

/** Durations of a whole run, kept in the repository (`cp` the cache's file there to renew it). */
const recordedDurationsFile = join(root, 'test', 'run', 'durations.json');

/** The claims of this run: one file per claimed test file, in the run's shared directory. */
function claimsDir(): string {
  const dir = join(runDirectory(), 'claims');
  mkdirSync(dir, { recursive: true });
  return dir;
}

function claim(dir: string, file: string): boolean {
  const key = createHash('sha1').update(file).digest('hex');
  try {
    closeSync(openSync(join(dir, key), 'wx'));
    return true;
  } catch {
    return false;
  }
}

// What files of a lane share and the lane closes once its last file is done (a browser, say).
const laneEnd: (() => Promise<void>)[] = [];
let running = false;

/** Whether this process is a lane, whose files run one after another in it. */
export function inLane(): boolean {
  return running;
}

/** Runs `close` when the lane's last file is done; only for a lane (see `inLane`). */
export function atLaneEnd(close: () => Promise<void>): void {
  laneEnd.push(close);
}

/** Whether a test file talks to the run's SolrCloud, and so waits for it to start. */
function needsSolr(file: string): boolean {
  let needs = solrFiles.get(file);
  if (needs === undefined) {
    needs = /testSolr\(|BesideSolr\(/.test(readFileSync(file, 'utf8'));
    solrFiles.set(file, needs);
  }
  return needs;
}
const solrFiles = new Map<string, boolean>();

/**
 * Whether the run's SolrCloud is up (or failed to start, which the files that need it report).
 * It takes half a minute to start, so it starts with the lanes, in the background, and a lane
 * takes files that do not need it meanwhile, unless only such files are left.
 */
function solrStarted(files: readonly string[]): () => boolean {
  if (!files.some(needsSolr) || solrSkipReason()) return () => true;
  let up = false;
  testSolr().then(
    () => (up = true),
    () => (up = true),
  );
  return () => up;
}

/** Claims and runs test files until none is left. */
export async function runLane(): Promise<void> {
  running = true;
  removeStaleRuns();
  const dir = claimsDir();
  const pending = testFiles();
  const solrUp = solrStarted(pending);
  while (pending.length > 0) {
    const next = solrUp() ? 0 : pending.findIndex((file) => !needsSolr(file));
    const [file] = pending.splice(Math.max(next, 0), 1) as [string];
    if (!claim(dir, file)) continue;
    const limit = setTimeout(() => {
      console.error(`${relative(root, file)} ran past ${FILE_LIMIT_MS / 1000} s (or registered no test)`);
      process.exit(1);
    }, FILE_LIMIT_MS);
    try {
      await import(pathToFileURL(file).href);
    } catch (error) {
      test(`${relative(root, file)} loads`, () => {
        throw error;
      });
    }
    // The root test runs a file's tests as they are registered and calls its `after`
    // hooks once they are done; this one is called after the file's own.
    await new Promise<void>((resolve) => after(() => resolve()));
    clearTimeout(limit);
  }
  for (const close of laneEnd.splice(0)) await close();
}
