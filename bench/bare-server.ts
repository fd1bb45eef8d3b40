import Fastify from 'fastify';

// The baseline of every load scenario: Fastify with no hooks, answering a constant.
const body = JSON.parse(process.env.BARE_BODY ?? '[]');
const app = Fastify({ logger: false });
app.get('/bare', async () => body);
const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`listening at ${address}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
