// A node:test reporter that prints, after the run, how long each test file took and the
// slowest ten, so that a file that grew slower is seen in the next CI log. It prints
// nothing else; `npm test` runs it beside the spec reporter. It also leaves the durations
// in node_modules/.cache, where the lanes (lane-runner.ts) read them to start the longest
// files first in the next run. Plain JavaScript: Node loads reporters before the
// TypeScript loader.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const SHOWN = 10;
const durationsFile = join(process.cwd(), 'node_modules', '.cache', 'searchdeck', 'test-durations.json');

/** @param {AsyncIterable<{ type: string, data: { name?: string, file?: string, nesting?: number, details?: { duration_ms?: number } } }>} source */
export default async function* durations(source) {
  /** @type {Map<string, number>} */
  const files = new Map();
  const started = Date.now();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, file, nesting, details } = event.data;
    if (nesting !== 0 || !file || details?.duration_ms === undefined) continue;
    const key = relative(process.cwd(), file);
    // A lane is a process that runs many files; its files are counted, not it.
    if (key.startsWith(join('test', 'run'))) continue;
    // A file run in a process of its own may be reported as one top-level test named by
    // its path; otherwise its own top-level tests add up to the file's duration.
    if (name === file) files.set(key, details.duration_ms);
    else files.set(key, (files.get(key) ?? 0) + details.duration_ms);
  }
  const rows = [...files].sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((sum, [, ms]) => sum + ms, 0);
  const width = Math.max(4, ...rows.slice(0, SHOWN).map(([file]) => file.length));
  yield `\nslowest test files (of ${rows.length}; ${seconds(total)} in all files, ${seconds(Date.now() - started)} of wall time):\n`;
  for (const [file, ms] of rows.slice(0, SHOWN))
    yield `  ${file.padEnd(width)}  ${seconds(ms).padStart(8)}\n`;
  // Only a run of many files says which files are long; one file run alone says little.
  if (rows.length >= 20) {
    try {
      mkdirSync(dirname(durationsFile), { recursive: true });
      writeFileSync(
        durationsFile,
        JSON.stringify(Object.fromEntries(rows.map(([f, ms]) => [f, Math.round(ms)]))),
      );
    } catch {
      // A read-only checkout only loses the ordering of the next run.
    }
  }
}

/** @param {number} ms */
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
