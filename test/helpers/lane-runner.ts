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
  const last = lastDurations();
  const cost = (file: string) => last.get(relative(root, file)) ?? statSync(file).size;
  return files.sort((a, b) => cost(b) - cost(a) || a.localeCompare(b));
}

function lastDurations(): Map<string, number> {
  try {
    return new Map(Object.entries(JSON.parse(readFileSync(durationsFile, 'utf8')) as Record<string, number>));
  } catch {
    return new Map();
  }
}

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

/** Claims and runs test files until none is left. */
export async function runLane(): Promise<void> {
  removeStaleRuns();
  const dir = claimsDir();
  for (const file of testFiles()) {
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
}
