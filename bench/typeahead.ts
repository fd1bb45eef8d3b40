/**
 * Typeahead scenario: suggestions against a bare route, ingestion rate, the hourly job
 * under load, and (in-process) index build time and memory of 1,000 instances.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, loadTable, root, rssMiB, seededRandom, startBare, startService } from './lib.js';
import type { Benchmark } from './run.js';
import { randomTerms } from './typeahead-data.js';

const QUICK = process.env.BENCH_QUICK === '1';
const SECONDS = QUICK ? 3 : 15;
const PASSWORD = 'bench-admin-password';
const auth = `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`;
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

// biome-ignore lint/suspicious/noExplicitAny: answers of several endpoints, read field by field
async function call(url: string, method: string, body?: unknown): Promise<any> {
  const response = await fetch(url, {
    method,
    headers: { authorization: auth, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (response.status >= 300)
    throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

async function logSearches(api: string, queries: string[], batch = 1000): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < queries.length; i += batch) {
    await call(
      `${api}/search-logs`,
      'POST',
      queries.slice(i, i + batch).map((query) => ({ query })),
    );
  }
  return queries.length / ((performance.now() - started) / 1000);
}

export const typeaheadBenchmark: Benchmark = {
  name: 'typeahead',
  async run() {
    const dataDir = mkdtempSync(join(tmpdir(), 'searchdeck-bench-'));
    const service = await startService({ SEARCHDECK_DATA_DIR: dataDir, SEARCHDECK_ADMIN_PASSWORD: PASSWORD });
    try {
      const random = seededRandom(42);
      const created = await call(`${service.url}/api/typeahead/instances`, 'POST', {
        name: 'Bench',
        minCount: 1,
      });
      const api = `${service.url}/api/typeahead/instances/${created.id}`;
      await call(`${api}/terms`, 'PUT', {
        included: randomTerms(random, 3900),
        excluded: randomTerms(random, 100),
      });
      const ingestRate = await logSearches(api, randomTerms(random, QUICK ? 20_000 : 200_000));
      const counts = await call(`${api}/refresh`, 'POST');

      const headers = { authorization: `Embed ${created.embedToken}` };
      const prefixRandom = seededRandom(7);
      const prefix = () => {
        let p = '';
        const length = 1 + Math.floor(prefixRandom() * 3);
        for (let i = 0; i < length; i++) p += LETTERS[Math.floor(prefixRandom() * LETTERS.length)];
        return `/typeahead/suggestions?prefix=${p}`;
      };
      const sample = await (await fetch(`${service.url}/typeahead/suggestions`, { headers })).json();
      const bare = await startBare(sample);
      const baseline = await load({
        label: 'bare Fastify route, constant array',
        url: `${bare.url}/bare`,
        seconds: SECONDS,
      });
      await bare.stop();
      const suggestions = await load({
        label: `suggestions, ${counts.served} served, 1-3 letter prefixes`,
        url: `${service.url}/typeahead/suggestions`,
        headers,
        path: prefix,
        seconds: SECONDS,
      });

      // The job over a large log, with suggestions measured while it runs.
      const jobQueries = QUICK ? 100_000 : 10_000_000;
      const jobKeys = QUICK ? 10_000 : 1_000_000;
      const keyRandom = seededRandom(9);
      const big = await call(`${service.url}/api/typeahead/instances`, 'POST', { name: 'Job', minCount: 1 });
      const bigApi = `${service.url}/api/typeahead/instances/${big.id}`;
      for (let sent = 0; sent < jobQueries; sent += 10_000) {
        const entries = Array.from({ length: 10_000 }, () => ({
          query: `query ${Math.floor(keyRandom() ** 2 * jobKeys)}`,
        }));
        await call(`${bigApi}/search-logs`, 'POST', entries);
      }
      const during = load({
        label: 'suggestions while the job runs',
        url: `${service.url}/typeahead/suggestions`,
        headers,
        path: prefix,
        seconds: SECONDS,
      });
      const jobStarted = performance.now();
      await call(`${bigApi}/refresh`, 'POST');
      const jobSeconds = (performance.now() - jobStarted) / 1000;
      const concurrent = await during;
      const rss = rssMiB(service.pid);

      const memory = execFileSync(
        process.execPath,
        ['--import', 'tsx', 'bench/typeahead-index.ts', QUICK ? '50' : '1000'],
        {
          cwd: root,
          encoding: 'utf8',
        },
      );
      return [
        '## Typeahead',
        '',
        loadTable([baseline, suggestions, concurrent], baseline),
        '',
        `- Ingestion: ${Math.round(ingestRate)} logged searches/s in batches of 1,000 (SQLite).`,
        `- Top-searched job over ${jobQueries.toLocaleString('en')} logged searches (${jobKeys.toLocaleString('en')} possible keys): ${jobSeconds.toFixed(1)} s.`,
        `- Service RSS after the run: ${rss} MiB.`,
        '',
        'Index build and memory (in process, `bench/typeahead-index.ts`):',
        '',
        '```',
        memory.trim(),
        '```',
      ].join('\n');
    } finally {
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
};
