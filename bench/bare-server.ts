import Fastify from 'fastify';

// The baseline of every load scenario: Fastify with no hooks, answering a constant. It answers
// every GET path, so that a scenario can send it the very requests it sends the service (same
// paths, same headers): the load generator, which shares the machine's cores, then does the
// same work on both sides and the ratio compares the servers alone.
const body = JSON.parse(process.env.BARE_BODY ?? '[]');
const app = Fastify({ logger: false });
app.get('/*', async () => body);
const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`listening at ${address}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
