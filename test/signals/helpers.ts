// A shop set up for the Signals API: app `shop` with a standalone cluster (never asked: the
// signals need no Solr), query profiles over collections and their search-only keys.
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { ShopperHasher } from '../../src/signals/shopper-hash.js';
import type { SearchSignalTable, SignalTable } from '../../src/signals/tables.js';
import type { Database } from '../../src/storage/schema.js';
import { call } from '../helpers/api.js';

export const SHOP = 'shop';
/** The secret key of the apps `build` makes: the hashes tests expect are made under it. */
export const hasher = new ShopperHasher(Buffer.alloc(32, 7));

/** A cluster in `app`, a profile `id` over `collection` with the given fields, and a key of it. */
export async function profileWithKey(
  app: FastifyInstance,
  options: { app?: string; id?: string; collection?: string; profile?: Record<string, unknown> } = {},
): Promise<string> {
  const inApp = options.app ?? SHOP;
  const id = options.id ?? 'web';
  // Made by the app's first profile; 409 for the next ones.
  const cluster = await call(app, 'POST', `/api/apps/${inApp}/searchCluster`, {
    id: `solr-${inApp}`,
    connectString: 'http://127.0.0.1:1/solr',
    cloud: false,
  });
  assert.ok([200, 409].includes(cluster.status), JSON.stringify(cluster.body));
  const created = await call(app, 'PUT', `/api/apps/${inApp}/query-profiles/${id}`, {
    searchCluster: `solr-${inApp}`,
    collection: options.collection ?? 'products',
    ...options.profile,
  });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const key = await call(app, 'POST', `/api/apps/${inApp}/query-profiles/${id}/keys`);
  assert.equal(key.status, 200);
  return key.body.key as string;
}

/** POSTs signals; the answer's status and body. */
export async function postSignals(
  app: FastifyInstance,
  signals: unknown,
  options: {
    authorization?: string;
    collection?: string;
    app?: string;
    query?: string;
    headers?: Record<string, string>;
  } = {},
) {
  const response = await app.inject({
    method: 'POST',
    url: `/api/apps/${options.app ?? SHOP}/signals/${options.collection ?? 'products'}${options.query ?? ''}`,
    headers: {
      ...(options.authorization === undefined ? {} : { authorization: options.authorization }),
      ...options.headers,
    },
    payload: signals as object,
  });
  return {
    status: response.statusCode,
    body: response.body ? response.json() : undefined,
    headers: response.headers,
  };
}

/** A response signal as the query path writes it, with the defaults a test does not care about. */
export function searchSignal(
  fields: Partial<SearchSignalTable> & { id: string; at: number },
): SearchSignalTable {
  return {
    app: SHOP,
    profile_id: 'web',
    collection: 'products',
    query: 'kettle',
    query_key: 'kettle',
    rewritten: 'kettle',
    hits: 3,
    doc_ids: JSON.stringify(['P1', 'P2', 'P3']),
    rule_ids: '[]',
    segment: null,
    user_hash: null,
    session_hash: null,
    counted: 1,
    experiment: null,
    variant: null,
    unit_hash: null,
    ...fields,
  };
}

/** Every posted signal stored, by id. */
export async function storedSignals(db: Kysely<Database>) {
  return db.selectFrom('signal').selectAll().orderBy('id').execute();
}

/** A stored click of `P1` in shop/products at `at`, with nothing else known. */
export function clickRow(id: string, at: number): SignalTable {
  return {
    id,
    app: SHOP,
    collection: 'products',
    type: 'click',
    at,
    received_at: at,
    doc_id: 'P1',
    query: null,
    query_key: null,
    query_id: null,
    attribution: null,
    position: null,
    price: null,
    quantity: null,
    user_hash: null,
    session_hash: null,
    params: '{}',
  };
}
