// HTTP servers playing Solr nodes for the query endpoint: they record the parameters of
// every select request and answer Solr-shaped JSON.
import { once } from 'node:events';
import http from 'node:http';

export interface SelectSolr {
  nodeName: string;
  baseUrl: string;
  /** The form parameters of every select request, in order. */
  received: URLSearchParams[];
  /**
   * `ok`, `down` (answers 503), `error` (answers Solr's 400), `unauthorized` (answers 401, as a
   * node relays it when the node it forwards to is stopping), or `silent` (never answers).
   */
  mode: 'ok' | 'down' | 'error' | 'unauthorized' | 'silent';
  close(): Promise<void>;
}

export async function startSelectSolr(): Promise<SelectSolr> {
  const state: Pick<SelectSolr, 'received' | 'mode'> = { received: [], mode: 'ok' };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const params = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      state.received.push(params);
      if (state.mode === 'silent') return;
      if (state.mode === 'down') {
        response.writeHead(503, { 'content-type': 'text/html' }).end('<h2>Service Unavailable</h2>');
        return;
      }
      if (state.mode === 'unauthorized') {
        response.writeHead(401, { 'content-type': 'text/html' }).end('<h2>HTTP ERROR 401</h2>');
        return;
      }
      if (state.mode === 'error') {
        response.writeHead(400, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            responseHeader: { status: 400, QTime: 0 },
            error: {
              msg: 'undefined field nope',
              code: 400,
              trace: 'org.apache.solr.common.SolrException: at …',
            },
          }),
        );
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json;charset=utf-8' }).end(
        JSON.stringify({
          responseHeader: { status: 0, QTime: 1, params: { q: params.get('q') } },
          response: { numFound: 1, start: 0, docs: [{ id: 'P1', node: request.socket.localPort }] },
        }),
      );
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  const solr: SelectSolr = {
    nodeName: `127.0.0.1:${address.port}_solr`,
    baseUrl: `http://127.0.0.1:${address.port}/solr`,
    get received() {
      return state.received;
    },
    get mode() {
      return state.mode;
    },
    set mode(mode) {
      state.mode = mode;
    },
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
  return solr;
}
