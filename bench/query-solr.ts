import http from 'node:http';

// A fast fake Solr node for the query benchmark: every select request gets the same
// Solr-shaped answer of ten documents at once.
const body = JSON.stringify({
  responseHeader: { status: 0, QTime: 1 },
  response: {
    numFound: 1234,
    start: 0,
    docs: Array.from({ length: 10 }, (_, i) => ({ id: `P${i}`, name: `Product ${i}`, price: 10 + i })),
  },
});
const server = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json;charset=utf-8' }).end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.stdout.write(`listening at http://127.0.0.1:${address.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
