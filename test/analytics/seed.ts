// Raw signals written straight into their tables, as the query path and the Signals API
// would, and the analytics computed naively from them: what the rollups must agree with.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { shopperHash, shopperHashKey } from '../../src/signals/shopper-hash.js';
import type { Database } from '../../src/storage/schema.js';
import { adminAuth } from '../helpers/app.js';

export const APP = 'shop';
export const PROFILE = 'web';
/** The secret key build() gives the app. */
const hashKey = shopperHashKey(Buffer.alloc(32, 7));

export const userHash = (userId: string) => shopperHash(hashKey, userId);

export interface SeedSearch {
  id?: string;
  /** Another app than the seed's own. */
  app?: string;
  profile?: string;
  at: number;
  query: string;
  hits: number;
  docIds?: string[];
  ruleIds?: string[];
  counted?: boolean;
  user?: string;
  /** The experiment variant the search was assigned to, and the value that assigned it. */
  experiment?: { id: string; variant: string; unit: string };
}

export interface SeedSignal {
  queryId: string | null;
  type: string;
  docId?: string;
  position?: number;
  at: number;
  receivedAt?: number;
  user?: string;
}

/** A search's key as the query path stores it (the tests use keys that term-key leaves as they are). */
const keyOf = (query: string) => query.trim().toLowerCase();

export async function insertSearches(
  db: Kysely<Database>,
  searches: readonly SeedSearch[],
): Promise<string[]> {
  const rows = searches.map((s) => ({
    id: s.id ?? randomUUID(),
    app: s.app ?? APP,
    profile_id: s.profile ?? PROFILE,
    collection: 'products',
    at: s.at,
    query: s.query,
    query_key: keyOf(s.query),
    rewritten: s.query,
    hits: s.hits,
    doc_ids: JSON.stringify(s.docIds ?? []),
    rule_ids: JSON.stringify(s.ruleIds ?? []),
    segment: null,
    user_hash: s.user === undefined ? null : userHash(s.user),
    session_hash: null,
    counted: s.counted === false ? 0 : 1,
    experiment: s.experiment?.id ?? null,
    variant: s.experiment?.variant ?? null,
    unit_hash: s.experiment === undefined ? null : userHash(s.experiment.unit),
  }));
  for (let i = 0; i < rows.length; i += 200)
    await db
      .insertInto('search_signal')
      .values(rows.slice(i, i + 200))
      .execute();
  return rows.map((r) => r.id);
}

export async function insertSignals(db: Kysely<Database>, signals: readonly SeedSignal[]): Promise<void> {
  const rows = signals.map((s) => ({
    id: randomUUID(),
    app: APP,
    collection: 'products',
    type: s.type,
    at: s.at,
    received_at: s.receivedAt ?? s.at,
    doc_id: s.docId ?? null,
    query: null,
    query_key: null,
    query_id: s.queryId,
    attribution: s.queryId === null ? null : 'sent',
    position: s.position ?? null,
    price: null,
    quantity: null,
    user_hash: s.user === undefined ? null : userHash(s.user),
    session_hash: null,
    params: '{}',
  }));
  for (let i = 0; i < rows.length; i += 200)
    await db
      .insertInto('signal')
      .values(rows.slice(i, i + 200))
      .execute();
}

/** A search cluster and the profile (`web`, or `id`) of the app, in the studio when given. */
export async function createProfile(app: FastifyInstance, id = PROFILE, studio?: string): Promise<void> {
  const cluster = await app.inject({
    method: 'PUT',
    url: `/api/apps/${APP}/searchCluster/solr`,
    headers: { authorization: adminAuth },
    payload: { id: 'solr', connectString: '127.0.0.1:2181/solr' },
  });
  if (cluster.statusCode >= 300) throw new Error(`cluster: ${cluster.body}`);
  if (studio) {
    const made = await app.inject({
      method: 'POST',
      url: '/api/studios',
      headers: { authorization: adminAuth },
      payload: { id: studio, name: studio },
    });
    if (made.statusCode >= 300) throw new Error(`studio: ${made.body}`);
  }
  const profile = await app.inject({
    method: 'PUT',
    url: `/api/apps/${APP}/query-profiles/${id}`,
    headers: { authorization: adminAuth },
    payload: { searchCluster: 'solr', collection: 'products', ...(studio ? { studio } : {}) },
  });
  if (profile.statusCode !== 200) throw new Error(`profile: ${profile.body}`);
}

/** GET of an analytics answer as the admin (or `auth`). */
export async function analytics(app: FastifyInstance, path: string, auth = adminAuth) {
  const response = await app.inject({
    url: `/api/apps/${APP}/analytics/${PROFILE}${path}`,
    headers: { authorization: auth },
  });
  return { status: response.statusCode, body: response.json() };
}
