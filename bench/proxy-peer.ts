import { createServer } from 'node:http';
import { Pool } from 'undici';

// The floor under the query endpoint: Node's own HTTP server that passes each request's query
// string on to the Solr node (a POSTed form, through an undici pool, as searchdeck sends
// it) and answers the node's body. It checks nothing, rewrites nothing and logs nothing, so
// its share of the direct throughput is the most any Node service that makes the same second
// hop can reach on this machine.
const upstream = process.env.PROXY_UPSTREAM;
if (upstream === undefined) throw new Error('PROXY_UPSTREAM is required');
const pool = new Pool(upstream, { connections: 256 });
/** The node's credentials, when it asks for them (PROXY_AUTHORIZATION: a whole header value). */
const authorization = process.env.PROXY_AUTHORIZATION;
const FORM_TYPE = 'application/x-www-form-urlencoded; charset=utf-8';

const server = createServer((request, response) => {
  const url = request.url ?? '/';
  const mark = url.indexOf('?');
  pool
    .request({
      path: '/solr/products/select',
      method: 'POST',
      headers: {
        'content-type': FORM_TYPE,
        accept: 'application/json',
        ...(authorization ? { authorization } : {}),
      },
      body: mark < 0 ? '' : url.slice(mark + 1),
    })
    .then(({ statusCode, body }) => body.text().then((text) => ({ statusCode, text })))
    .then(
      ({ statusCode, text }) => {
        response.writeHead(statusCode, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(text),
        });
        response.end(text);
      },
      () => {
        response.writeHead(502).end();
      },
    );
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`listening at http://127.0.0.1:${port}\n`);
});
process.on('SIGTERM', () => server.close(() => pool.close().then(() => process.exit(0))));
