// The service for the evaluation benchmark: the real app, with the benchmark's generated
// rewrites as its rewrite source (2,000 of them without seeding them through the Query
// Rewrites API) and a route that reports the index's rebuilds and the heap it holds. Run
// with --expose-gc.
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { loadSecretKey } from '../src/security/secret-key.js';
import { prepareStore } from '../src/server.js';
import { benchRewrites } from './evaluate-data.js';

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const heap = () => {
  gc();
  return process.memoryUsage().heapUsed;
};

const config = loadConfig(process.env, ['--port', '0']);
const store = await prepareStore(config, () => {});
const rewrites = benchRewrites();
const app = await buildApp({
  config,
  store,
  secretKey: loadSecretKey(config),
  rewrites: { live: async (_db, studioId) => (studioId === 'shop' ? rewrites : []), staging: async () => [] },
});
let heapBytes = 0;
app.get('/bench/stats', async () => ({ ...app.parts.evaluation.rebuilds, heapBytes }));
const before = heap();
await app.ready();
heapBytes = heap() - before;
const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`listening at ${address}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
