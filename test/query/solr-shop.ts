// A shop on the test run's real SolrCloud, as the real-Solr query tests set it up: app `shop`
// with the search cluster `solr` (the run's ZooKeeper and Solr's credentials), studio
// `studio1` with an API client's token, a query profile on the catalog's collection and a
// search-only key of it.
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { call } from '../helpers/api.js';
import type { TestSolr } from '../helpers/solr.js';
import { type StudioAccess, studioWithToken } from '../rules/api.js';

export const SHOP = 'shop';

export async function shopOnTestSolr(
  app: FastifyInstance,
  solr: TestSolr,
  /** The profile's fields beyond its cluster, collection and studio (`id` defaults to `web`). */
  profile: Record<string, unknown>,
  zkConnectTimeout = 5000,
): Promise<{ access: StudioAccess; key: string }> {
  const cluster = await call(app, 'POST', `/api/apps/${SHOP}/searchCluster`, {
    id: 'solr',
    connectString: solr.zk,
    zkConnectTimeout,
    authConfig: { authType: 'BASIC', ...solr.credentials },
  });
  assert.equal(cluster.status, 200, JSON.stringify(cluster.body));
  const access = await studioWithToken(app, 'studio1');
  const id = (profile.id as string | undefined) ?? 'web';
  const created = await call(app, 'POST', `/api/apps/${SHOP}/query-profiles`, {
    id,
    searchCluster: 'solr',
    collection: solr.collection,
    studio: 'studio1',
    ...profile,
  });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const key = await call(app, 'POST', `/api/apps/${SHOP}/query-profiles/${id}/keys`);
  assert.equal(key.status, 200);
  return { access, key: key.body.key as string };
}
