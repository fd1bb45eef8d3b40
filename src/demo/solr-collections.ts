// What the demo, `npm run solr` and the tests ask of a Solr as its administrator: which
// collections and configsets exist, uploading the products configset, creating a collection
// and indexing products. Solr's own APIs over HTTP (Collections, Configsets, /update), with
// the cluster's Basic credentials; every call bounded by a timeout.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import type { BasicCredentials } from '../clusters/solr.js';
import { packageRoot } from '../package-root.js';

/** The products configset shipped with searchdeck (schema, solrconfig, elevate.xml). */
export function productsConfigsetDirectory(): string {
  return join(packageRoot(), 'solr', 'configsets', 'products', 'conf');
}

/** A Solr answer that was not a success, with Solr's own message. */
export class SolrAdminError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'SolrAdminError';
  }
}

export interface CollectionLayout {
  configset: string;
  shards?: number;
  replicas?: number;
  /** Node names (`host:port_solr`) to place the replicas on; any live node when absent. */
  nodes?: readonly string[];
}

export class SolrCollections {
  readonly #baseUrl: string;
  readonly #authorization: string | undefined;

  /** `baseUrl` is a node's `http://host:port/solr`. */
  constructor(
    baseUrl: string,
    credentials?: BasicCredentials,
    private readonly timeoutMs = 120_000,
  ) {
    this.#baseUrl = baseUrl.replace(/\/+$/, '');
    this.#authorization =
      credentials &&
      `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
  }

  /** The collections of a SolrCloud. */
  async collections(): Promise<string[]> {
    const answer = await this.#call('GET', '/admin/collections', { action: 'LIST' });
    return (answer.collections as string[] | undefined) ?? [];
  }

  async configsets(): Promise<string[]> {
    const answer = await this.#call('GET', '/admin/configs', { action: 'LIST' });
    return (answer.configSets as string[] | undefined) ?? [];
  }

  /** Uploads every file of `directory` (flat, as the products configset is) as configset `name`. */
  async uploadConfigset(name: string, directory: string): Promise<void> {
    for (const file of readdirSync(directory)) {
      await this.#call(
        'POST',
        '/admin/configs',
        { action: 'UPLOAD', name, filePath: file, overwrite: 'true' },
        { type: 'application/octet-stream', body: readFileSync(join(directory, file)) },
      );
    }
  }

  /** Creates `name` and waits until its replicas are active. */
  async createCollection(name: string, layout: CollectionLayout): Promise<void> {
    await this.#call('POST', '/admin/collections', {
      action: 'CREATE',
      name,
      'collection.configName': layout.configset,
      numShards: String(layout.shards ?? 1),
      replicationFactor: String(layout.replicas ?? 1),
      waitForFinalState: 'true',
      ...(layout.nodes ? { createNodeSet: layout.nodes.join(',') } : {}),
    });
  }

  async deleteCollection(name: string): Promise<void> {
    await this.#call('POST', '/admin/collections', { action: 'DELETE', name });
  }

  /** Indexes `documents` in batches and commits, so that they are searchable when it returns. */
  async index(collection: string, documents: Iterable<object>, batchSize = 5_000): Promise<number> {
    let batch: object[] = [];
    let count = 0;
    const send = async () => {
      if (batch.length === 0) return;
      await this.#call(
        'POST',
        `/${encodeURIComponent(collection)}/update`,
        {},
        { type: 'application/json', body: JSON.stringify(batch) },
      );
      count += batch.length;
      batch = [];
    };
    for (const document of documents) {
      batch.push(document);
      if (batch.length >= batchSize) await send();
    }
    await send();
    await this.#call(
      'POST',
      `/${encodeURIComponent(collection)}/update`,
      { commit: 'true' },
      { type: 'application/json', body: '[]' },
    );
    return count;
  }

  /** How many documents `collection` holds, as a search sees them. */
  async count(collection: string): Promise<number> {
    const answer = await this.#call('GET', `/${encodeURIComponent(collection)}/select`, {
      q: '*:*',
      rows: '0',
    });
    return (answer.response as { numFound: number }).numFound;
  }

  async #call(
    method: 'GET' | 'POST',
    path: string,
    params: Record<string, string>,
    content?: { type: string; body: string | Buffer },
  ): Promise<Record<string, unknown>> {
    const url = `${this.#baseUrl}${path}?${new URLSearchParams({ ...params, wt: 'json' })}`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.#authorization) headers.authorization = this.#authorization;
    if (content) headers['content-type'] = content.type;
    const response = await request(url, {
      method,
      headers,
      body: content?.body,
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
    });
    const text = await response.body.text();
    let answer: Record<string, unknown> = {};
    try {
      answer = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // Solr answers some failures (401 from its security layer) with an HTML page.
    }
    const failure = failureOf(response.statusCode, answer);
    if (failure !== undefined) throw new SolrAdminError(response.statusCode, `${path}: ${failure}`);
    return answer;
  }
}

function failureOf(status: number, answer: Record<string, unknown>): string | undefined {
  const error = answer.error as { msg?: string } | undefined;
  if (status === 401) return 'Solr refused the credentials (401)';
  if (status === 403) return 'Solr denied this user the action (403)';
  if (status >= 400 || error !== undefined) return error?.msg ?? `Solr answered ${status}`;
  // The Collections API reports a failure of one replica's creation beside a status 0.
  const failed = answer.failure as Record<string, unknown> | undefined;
  if (failed !== undefined) return `Solr reported: ${JSON.stringify(failed)}`;
  return undefined;
}

export interface ProductsCollection {
  /** Whether this call created the collection, uploaded the configset, indexed the catalog. */
  created: boolean;
  configsetUploaded: boolean;
  indexed: number;
  /** The documents it holds now. */
  count: number;
}

/**
 * Makes sure `collection` exists in a SolrCloud, made from the products configset (uploaded
 * when Solr has none of that name), and holds the sample catalog (indexed when it is empty).
 * Whatever exists is left as it is, so a second call changes nothing.
 */
export async function ensureProductsCollection(
  solr: SolrCollections,
  collection: string,
  catalog: () => Iterable<object>,
  layout: Omit<CollectionLayout, 'configset'> = {},
  configset = 'products',
): Promise<ProductsCollection> {
  let configsetUploaded = false;
  let created = false;
  if (!(await solr.collections()).includes(collection)) {
    if (!(await solr.configsets()).includes(configset)) {
      await solr.uploadConfigset(configset, productsConfigsetDirectory());
      configsetUploaded = true;
    }
    await solr.createCollection(collection, { ...layout, configset });
    created = true;
  }
  let count = await solr.count(collection);
  let indexed = 0;
  if (count === 0) {
    indexed = await solr.index(collection, catalog());
    count = await solr.count(collection);
  }
  return { created, configsetUploaded, indexed, count };
}
