// A node:test reporter that prints, after the run, how long each test file took and the
// slowest ten, so that a file that grew slower is seen in the next CI log. It prints
// nothing else; `npm test` runs it beside the spec reporter. Plain JavaScript: Node loads
// reporters before the TypeScript loader.
import { relative } from 'node:path';

const SHOWN = 10;

/** @param {AsyncIterable<{ type: string, data: { name?: string, file?: string, nesting?: number, details?: { duration_ms?: number } } }>} source */
export default async function* durations(source) {
  /** @type {Map<string, number>} */
  const files = new Map();
  const started = Date.now();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, file, nesting, details } = event.data;
    if (nesting !== 0 || !file || details?.duration_ms === undefined) continue;
    // Node 20 reports each file as one top-level test named by its path; later versions
    // report the file's own top-level tests, whose durations add up to the file's.
    const key = relative(process.cwd(), file);
    if (name === file) files.set(key, details.duration_ms);
    else files.set(key, (files.get(key) ?? 0) + details.duration_ms);
  }
  const rows = [...files].sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((sum, [, ms]) => sum + ms, 0);
  const width = Math.max(4, ...rows.slice(0, SHOWN).map(([file]) => file.length));
  yield `\nslowest test files (of ${rows.length}; ${seconds(total)} in all files, ${seconds(Date.now() - started)} of wall time):\n`;
  for (const [file, ms] of rows.slice(0, SHOWN))
    yield `  ${file.padEnd(width)}  ${seconds(ms).padStart(8)}\n`;
}

/** @param {number} ms */
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
