// Sending a select request to a Solr node: kept-alive connections, a timeout, and the
// cluster's Basic credentials.
import http from 'node:http';
import https from 'node:https';
import type { BasicCredentials, SolrNode } from '../clusters/service.js';

const MAX_BODY = 64 * 1024 * 1024;
const MAX_URLS = 1024;

export type SolrOutcome =
  | { ok: true; body: string }
  | { ok: false; kind: 'timeout' | 'unreachable' | 'refused'; status?: number; detail: string };

export class SolrClient {
  readonly #http = new http.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64 });
  readonly #https = new https.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64 });
  /** The select URL of each node and collection queried, parsed once (a few per cluster). */
  readonly #urls = new Map<string, URL>();

  /** POSTs `form` to `/{collection}/select` on the node; never throws. */
  select(
    node: SolrNode,
    collection: string,
    form: string,
    credentials: BasicCredentials | undefined,
    timeoutMs: number,
  ): Promise<SolrOutcome> {
    return new Promise((resolve) => {
      const target = `${node.baseUrl}/${encodeURIComponent(collection)}/select`;
      let url = this.#urls.get(target);
      if (url === undefined) {
        try {
          url = new URL(target);
        } catch {
          return resolve({ ok: false, kind: 'unreachable', detail: `not a URL: ${node.name}` });
        }
        if (this.#urls.size >= MAX_URLS) this.#urls.clear();
        this.#urls.set(target, url);
      }
      const secure = url.protocol === 'https:';
      const headers: http.OutgoingHttpHeaders = {
        'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
        'content-length': Buffer.byteLength(form),
        accept: 'application/json',
      };
      if (credentials) {
        headers.authorization = `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
      }
      const request = (secure ? https : http).request(url, {
        method: 'POST',
        headers,
        agent: secure ? this.#https : this.#http,
        timeout: timeoutMs,
      });
      const timer = setTimeout(() => {
        request.destroy();
        resolve({ ok: false, kind: 'timeout', detail: `no answer within ${timeoutMs} ms` });
      }, timeoutMs);
      const done = (outcome: SolrOutcome) => {
        clearTimeout(timer);
        resolve(outcome);
      };
      request.on('error', (error) => done({ ok: false, kind: 'unreachable', detail: error.message }));
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_BODY) response.destroy(new Error('answer over 64 MiB'));
          else chunks.push(chunk);
        });
        response.on('error', (error) => done({ ok: false, kind: 'unreachable', detail: error.message }));
        response.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          const status = response.statusCode ?? 0;
          if (status === 200 && body.trimStart().startsWith('{')) return done({ ok: true, body });
          done({ ok: false, kind: 'refused', status, detail: solrMessage(body) ?? `HTTP ${status}` });
        });
      });
      request.end(form);
    });
  }

  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }
}

/** Solr's own error message (`error.msg`), without its trace. */
function solrMessage(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: { msg?: unknown } };
    return typeof parsed.error?.msg === 'string' ? parsed.error.msg.slice(0, 2000) : undefined;
  } catch {
    return undefined;
  }
}
