import Fastify from 'fastify';
import { RespClient } from './resp-client.js';

// The typeahead peer a user might build instead: Fastify in front of a Redis sorted set of
// the same terms, each stored as `<lower-case term>\0<term>` with score 0, so ZRANGEBYLEX
// finds the terms of a prefix in order and the part after NUL is what is shown.
const key = process.env.REDIS_KEY ?? 'searchdeck-bench-terms';
const limit = Number(process.env.SUGGESTION_LIMIT ?? 10);
const redis = await RespClient.open(
  process.env.REDIS_HOST ?? '127.0.0.1',
  Number(process.env.REDIS_PORT ?? 6379),
);
const HIGHEST = Buffer.from([0xff]);

const app = Fastify({ logger: false });
app.get<{ Querystring: { prefix?: string } }>('/typeahead/suggestions', async (request) => {
  const prefix = (request.query.prefix ?? '').toLowerCase();
  const members = (await redis.command([
    'ZRANGEBYLEX',
    key,
    prefix === '' ? '-' : `[${prefix}`,
    prefix === '' ? '+' : Buffer.concat([Buffer.from(`[${prefix}`), HIGHEST]),
    'LIMIT',
    '0',
    String(limit),
  ])) as string[];
  return members.map((member) => member.slice(member.indexOf('\0') + 1));
});
const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`listening at ${address}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
