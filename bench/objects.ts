// Objects export and import of a large app: a studio of 100,000 rules in the app's context
// exported from one service, streamed, and imported into an empty one.
import { loadavg } from 'node:os';
import { putLink } from '../src/links/service.js';
import { openStore } from '../src/storage/database.js';
import { createStudio } from '../src/studios/service.js';
import { type BenchStore, createBenchStore, type Engine } from './engines.js';
import { cpuMicros, rssMiB, seededRandom, startService } from './lib.js';
import { seedStudio } from './rules.js';
import type { Benchmark } from './run.js';

const RULES = process.env.BENCH_QUICK === '1' ? 10_000 : 100_000;
const ADMIN = `Basic ${Buffer.from('admin:bench-password').toString('base64')}`;

export const objectsBenchmark: Benchmark = {
  name: 'objects',
  async run(engine: Engine) {
    const sourceStore = await createBenchStore(engine, 'objects_source');
    const targetStore = await createBenchStore(engine, 'objects_target');
    const env = (store: BenchStore) => ({
      ...store.env,
      SEARCHDECK_ADMIN_PASSWORD: 'bench-password',
      SEARCHDECK_SECRET_KEY: Buffer.alloc(32, 3).toString('base64'),
    });
    try {
      await seed(sourceStore);
      const source = await startService(env(sourceStore));
      let exported: Awaited<ReturnType<typeof exportApp>>;
      try {
        exported = await exportApp(source.url, source.pid);
      } finally {
        await source.stop();
      }
      const target = await startService(env(targetStore));
      try {
        const load = loadavg()[0]!.toFixed(1);
        const cpuBefore = cpuMicros(target.pid);
        const started = performance.now();
        const response = await fetch(`${target.url}/api/objects/import`, {
          method: 'POST',
          headers: { authorization: ADMIN, 'content-type': 'application/json' },
          body: exported.text,
        });
        const report = (await response.json()) as { counts?: { created: number } };
        const importMs = performance.now() - started;
        const importCpu = (cpuMicros(target.pid) - cpuBefore) / 1e6;
        if (response.status !== 200)
          throw new Error(`import answered ${response.status}: ${JSON.stringify(report)}`);
        const mib = (exported.text.length / 2 ** 20).toFixed(1);
        return [
          '## Objects export and import',
          '',
          `One app: a studio of ${RULES.toLocaleString('en')} rules (about half published) in its context by a link; ${engine}. Exported from one service over HTTP (streamed) and imported into an empty one in one request.`,
          '',
          '| step | time | service CPU | notes |',
          '|---|---:|---:|---|',
          `| export (\`GET /api/objects/export?app=shop\`) | ${(exported.ms / 1000).toFixed(1)} s | ${exported.cpu.toFixed(1)} s | ${mib} MiB of JSON; service RSS ${exported.rssBefore} MiB before, at most ${exported.rssPeak} MiB while streaming |`,
          `| import (\`POST /api/objects/import\`, one transaction) | ${(importMs / 1000).toFixed(1)} s | ${importCpu.toFixed(1)} s | ${report.counts?.created.toLocaleString('en')} objects created; load average ${load} when it started |`,
          '',
          'Target (issue 15): the import of such an app completes in under 60 s on SQLite; the export streams in bounded memory. The service CPU column is the time the service process spent on the request: on a shared machine the wall time is that divided by the share of a core the process got.',
        ].join('\n');
      } finally {
        await target.stop();
      }
    } finally {
      await sourceStore.remove();
      await targetStore.remove();
    }
  },
};

async function seed(bench: BenchStore): Promise<void> {
  const store = openStore({ dataDir: bench.env.SEARCHDECK_DATA_DIR!, databaseUrl: bench.postgresUrl });
  const now = new Date('2026-06-01T00:00:00Z');
  await createStudio(store.db, { id: 'big', name: 'Big' }, now);
  await seedStudio(store.db, 'big', RULES, seededRandom(42));
  await putLink(store.db, { subject: 'studio:big', object: 'app:shop', linkType: 'inContextOf' }, now);
  await store.close();
  await bench.analyze();
}

/** Reads the export as it streams, sampling the service's resident memory meanwhile. */
async function exportApp(url: string, pid: number) {
  const rssBefore = rssMiB(pid);
  const cpuBefore = cpuMicros(pid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, rssMiB(pid));
  }, 100);
  const started = performance.now();
  try {
    const response = await fetch(`${url}/api/objects/export?app=shop`, { headers: { authorization: ADMIN } });
    if (response.status !== 200) throw new Error(`export answered ${response.status}`);
    const text = await response.text();
    return {
      text,
      ms: performance.now() - started,
      cpu: (cpuMicros(pid) - cpuBefore) / 1e6,
      rssBefore,
      rssPeak,
    };
  } finally {
    clearInterval(sampler);
    rssPeak = Math.max(rssPeak, rssMiB(pid));
  }
}
