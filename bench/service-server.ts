// The service as `searchdeck serve` starts it, with or without the early answers of its hot
// routes (BENCH_EARLY_ANSWERS=off): the bench compares the two doors of each hot endpoint in
// one run, as docs/decisions.md asks before an early answer is kept.
import { loadConfig } from '../src/config.js';
import { serve } from '../src/server.js';

const config = loadConfig(process.env, ['--port', '0']);
await serve(config, { earlyAnswers: process.env.BENCH_EARLY_ANSWERS !== 'off' });
