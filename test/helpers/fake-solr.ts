import { once } from 'node:events';
import http from 'node:http';

export interface FakeSolrOptions {
  /** When set, requests without these Basic credentials get 401, as Solr's BasicAuthPlugin answers. */
  credentials?: { username: string; password: string };
  /** `not-solr`: a web server that is not Solr; `silent`: accepts requests and never answers. */
  behaviour?: 'solr' | 'not-solr' | 'silent';
}

export interface FakeSolr {
  port: number;
  /** The live-node name Solr would register: `127.0.0.1:port_solr`. */
  nodeName: string;
  baseUrl: string;
  /** The Authorization header of every request received, in order (undefined when absent). */
  authorizations: Array<string | undefined>;
  /** What the node answers at `/solr/admin/info/system`. */
  systemInfo: object;
  close(): Promise<void>;
}

const SYSTEM_INFO_PATH = '/solr/admin/info/system';

/** A real HTTP server on a free loopback port answering `/solr/admin/info/system` like a Solr 9 node. */
export async function startFakeSolr(options: FakeSolrOptions = {}): Promise<FakeSolr> {
  const authorizations: Array<string | undefined> = [];
  const server = http.createServer((request, response) => {
    authorizations.push(request.headers.authorization);
    const behaviour = options.behaviour ?? 'solr';
    if (behaviour === 'silent') return;
    if (behaviour === 'not-solr') {
      response.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>It works!</body></html>');
      return;
    }
    if (options.credentials && request.headers.authorization !== basic(options.credentials)) {
      response
        .writeHead(401, { 'www-authenticate': 'Basic realm="solr"', 'content-type': 'text/html' })
        .end('<h2>HTTP ERROR 401 require authentication</h2>');
      return;
    }
    if (new URL(request.url ?? '/', 'http://solr').pathname !== SYSTEM_INFO_PATH) {
      response.writeHead(404, { 'content-type': 'text/html' }).end('<h2>HTTP ERROR 404 Not Found</h2>');
      return;
    }
    response
      .writeHead(200, { 'content-type': 'application/json;charset=utf-8' })
      .end(JSON.stringify(systemInfo(`127.0.0.1:${request.socket.localPort}_solr`)));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return {
    port: address.port,
    nodeName: `127.0.0.1:${address.port}_solr`,
    baseUrl: `http://127.0.0.1:${address.port}/solr`,
    authorizations,
    systemInfo: systemInfo(`127.0.0.1:${address.port}_solr`),
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

function basic({ username, password }: { username: string; password: string }): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

// The parts of a real Solr 9 answer that clients look at; `node` tells the nodes apart.
function systemInfo(node: string): object {
  return {
    responseHeader: { status: 0, QTime: 3 },
    mode: 'solrcloud',
    node,
    zkHost: '127.0.0.1:2181/solr',
    solr_home: '/var/solr/data',
    lucene: {
      'solr-spec-version': '9.4.0',
      'solr-impl-version': '9.4.0 71e101ad1b1c7ae1d4fc6d1a6d1d4aa7d2bd3ab4 - stillalex - 2023-10-16 20:05:55',
      'lucene-spec-version': '9.8.0',
    },
    jvm: { version: '17.0.9 17.0.9+9', name: 'Eclipse Adoptium OpenJDK 64-Bit Server VM' },
  };
}
