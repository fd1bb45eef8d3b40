// How long the built service takes from `node dist/src/main.js serve` to its first
// "listening" line on a migrated database (a restart, the usual start), beside the floor: a
// Node process that imports Fastify and listens with one route.
import { createBenchStore, type Engine } from './engines.js';
import { median, startProcess } from './lib.js';
import type { Benchmark } from './run.js';

const QUICK = process.env.BENCH_QUICK === '1';
const RUNS = QUICK ? 2 : 7;
// Only the secret key is required (PostgreSQL); the password is set so no start generates one.
const SETTINGS = {
  SEARCHDECK_ADMIN_PASSWORD: 'bench-admin-password',
  SEARCHDECK_SECRET_KEY: Buffer.alloc(32, 5).toString('base64'),
  SEARCHDECK_LOG_LEVEL: 'info',
};

const FLOOR = `import Fastify from 'fastify';
const app = Fastify({ logger: false });
app.get('/', async () => ({}));
const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write('listening at ' + address + '\\n');
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));`;

async function timedStart(start: () => ReturnType<typeof startProcess>): Promise<number> {
  const started = performance.now();
  const running = await start();
  const ms = performance.now() - started;
  await running.stop();
  return ms;
}

async function run(engine: Engine): Promise<string> {
  const store = await createBenchStore(engine, 'startup');
  try {
    const service: number[] = [];
    const floor: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      service.push(
        await timedStart(() =>
          startProcess(['dist/src/main.js', 'serve', '--port', '0'], { ...store.env, ...SETTINGS }),
        ),
      );
      floor.push(await timedStart(() => startProcess(['--input-type=module', '-e', FLOOR], {})));
    }
    const row = (what: string, values: number[]) =>
      `| ${what} | ${engine} | ${median(values).toFixed(0)} | ${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)} |`;
    return [
      `## Startup (${engine})`,
      '',
      `From spawning \`node dist/src/main.js serve\` to its "listening" line, on a migrated ${engine} database (a restart), ${RUNS} starts in turn with the floor: a Node process that imports Fastify and listens with one route. The service compiles each route schema once however often it is mounted (every admin route is mounted under \`/api\` and \`/api/apps/{app}\`), since the compiled validators and serialisers are kept by the schema's JSON (docs/decisions.md). When that came in (2026-11-27, issue 33), the build before it and the build with it were started in turn on one quiet machine, 7 times each on migrated SQLite: median 6,963 ms before, 2,973 ms after (57 % less).`,
      '',
      '| start | engine | median ms | min–max ms |',
      '|---|---|---:|---:|',
      row('the service, to listening', service),
      row('floor: Fastify with one route', floor),
    ].join('\n');
  } finally {
    await store.remove();
  }
}

export const startupBenchmark: Benchmark = { name: 'startup', run };
