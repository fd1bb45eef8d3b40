// Sending a select request to a Solr node: kept-alive connections (one undici pool per node),
// a timeout, and the cluster's Basic credentials. undici rather than node:http's client: the
// same exchange costs about half the CPU (docs/decisions.md, "The Solr hop uses undici").
import { Pool } from 'undici';
import type { BasicCredentials, SolrNode } from '../clusters/service.js';

const MAX_BODY = 64 * 1024 * 1024;
/** Nodes talked to at once; past this the longest-known pool is closed (its queries finish). */
const MAX_POOLS = 256;
const MAX_URLS = 1024;
const CONNECTIONS_PER_NODE = 256;
const FORM_TYPE = 'application/x-www-form-urlencoded; charset=utf-8';

export type SolrOutcome =
  | { ok: true; body: string }
  | {
      ok: false;
      /** `stopped`: the service is stopping and gave up waiting (`stop` was aborted). */
      kind: 'timeout' | 'unreachable' | 'refused' | 'stopped';
      status?: number;
      detail: string;
    };

interface Target {
  pool: Pool;
  path: string;
}

export class SolrClient {
  readonly #pools = new Map<string, Pool>();
  /** The pool and path of each node and collection queried, worked out once (a few per cluster). */
  readonly #targets = new Map<string, Target>();

  /** POSTs `form` to `/{collection}/select` on the node, given up when `stop` aborts; never throws. */
  select(
    node: SolrNode,
    collection: string,
    form: string,
    credentials: BasicCredentials | undefined,
    timeoutMs: number,
    stop?: AbortSignal,
  ): Promise<SolrOutcome> {
    const target = this.#targetOf(`${node.baseUrl}/${encodeURIComponent(collection)}/select`);
    if (target === undefined) {
      return Promise.resolve({ ok: false, kind: 'unreachable', detail: `not a URL: ${node.name}` });
    }
    const headers: Record<string, string> = { 'content-type': FORM_TYPE, accept: 'application/json' };
    if (credentials) {
      headers.authorization = `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
    }
    if (stop?.aborted) {
      return Promise.resolve({ ok: false, kind: 'stopped', detail: 'the service is stopping' });
    }
    return new Promise((resolve) => {
      const abort = new AbortController();
      let settled = false;
      const done = (outcome: SolrOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        stop?.removeEventListener('abort', stopped);
        resolve(outcome);
      };
      // The whole exchange, headers and body, within the profile's timeout.
      const timer = setTimeout(() => {
        done({ ok: false, kind: 'timeout', detail: `no answer within ${timeoutMs} ms` });
        abort.abort();
      }, timeoutMs);
      const stopped = () => {
        done({ ok: false, kind: 'stopped', detail: 'the service is stopping' });
        abort.abort();
      };
      stop?.addEventListener('abort', stopped, { once: true });
      target.pool
        .request({
          path: target.path,
          method: 'POST',
          headers,
          body: form,
          signal: abort.signal,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        })
        .then(async ({ statusCode, body }) => {
          const text = await body.text();
          if (statusCode === 200 && text.trimStart().startsWith('{')) return done({ ok: true, body: text });
          done({
            ok: false,
            kind: 'refused',
            status: statusCode,
            detail: solrMessage(text) ?? `HTTP ${statusCode}`,
          });
        })
        .catch((error: unknown) =>
          done({
            ok: false,
            kind: 'unreachable',
            detail: error instanceof Error ? error.message : String(error),
          }),
        );
    });
  }

  close(): void {
    for (const pool of this.#pools.values()) void pool.destroy();
    this.#pools.clear();
    this.#targets.clear();
  }

  #targetOf(address: string): Target | undefined {
    const known = this.#targets.get(address);
    if (known !== undefined) return known;
    let url: URL;
    try {
      url = new URL(address);
    } catch {
      return undefined;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    let pool = this.#pools.get(url.origin);
    if (pool === undefined) {
      if (this.#pools.size >= MAX_POOLS) this.#forgetOldestPool();
      pool = new Pool(url.origin, { connections: CONNECTIONS_PER_NODE, maxResponseSize: MAX_BODY });
      this.#pools.set(url.origin, pool);
    }
    if (this.#targets.size >= MAX_URLS) this.#targets.clear();
    const target = { pool, path: `${url.pathname}${url.search}` };
    this.#targets.set(address, target);
    return target;
  }

  #forgetOldestPool(): void {
    const [origin, pool] = this.#pools.entries().next().value as [string, Pool];
    this.#pools.delete(origin);
    for (const [address, target] of this.#targets) if (target.pool === pool) this.#targets.delete(address);
    void pool.close();
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
