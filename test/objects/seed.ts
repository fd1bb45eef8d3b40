// Objects of every kind, made through the public API, for the objects tests to export.
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { call } from '../helpers/api.js';
import { createRewrite, publish } from '../rewrites/api.js';
import { createRule, studioWithToken } from '../rules/api.js';

/** An app `shop` with a cluster (with a password), a studio with rules and a client, an instance with terms, and links. */
export async function seedShop(app: FastifyInstance): Promise<{ secrets: string[]; ruleIds: string[] }> {
  const cluster = await call(app, 'POST', '/api/apps/shop/searchCluster', {
    id: 'prod',
    connectString: 'http://127.0.0.1:1/solr',
    cloud: false,
    authConfig: { authType: 'BASIC', username: 'solr', password: 'cluster-password-1' },
  });
  assert.equal(cluster.status, 200, JSON.stringify(cluster.body));
  const access = await studioWithToken(app, 'acme');
  const draft = await createRule(app, access, {
    type: 'blockList',
    name: 'draft',
    fieldName: 'brand',
    fieldValues: ['x'],
  });
  const live = await createRule(app, access, {
    type: 'boostList',
    name: 'live',
    fieldName: 'brand',
    fieldValues: ['y'],
    externalId: 'ext-1',
  });
  const published = await app.inject({
    method: 'POST',
    url: `/em-rules/${live.id}/publish`,
    headers: access.headers,
  });
  assert.equal(published.statusCode, 200, published.body);
  assert.ok(draft.id);
  // A draft rewrite and a published one.
  await createRewrite(app, access, { type: 'synonym', synonyms: ['sofa', 'couch'] });
  const shown = await createRewrite(app, access, {
    type: 'misspelling',
    misspelling: 'shose',
    correction: 'shoes',
  });
  await publish(app, access, shown.id);
  const targets = await call(app, 'PUT', '/api/studios/acme', {
    syncTargets: ['https://hooks.example.com/acme'],
  });
  assert.equal(targets.status, 200, JSON.stringify(targets.body));
  const secrets = [
    'cluster-password-1',
    access.clientSecret,
    ...targets.body.syncTargetSecrets.map((s: { secret: string }) => s.secret),
  ];
  const instance = await call(app, 'POST', '/api/typeahead/instances', { id: 'shop-en', name: 'Shop EN' });
  assert.equal(instance.status, 201, JSON.stringify(instance.body));
  secrets.push(instance.body.embedToken);
  const terms = await call(app, 'PUT', '/api/typeahead/instances/shop-en/terms', {
    included: ['shoes', 'socks'],
    excluded: ['bad word'],
  });
  assert.equal(terms.status, 200, JSON.stringify(terms.body));
  for (const link of [
    { subject: 'studio:acme', object: 'app:shop', linkType: 'inContextOf' },
    { subject: 'typeahead:shop-en', object: 'app:shop', linkType: 'inContextOf' },
    { subject: 'studio:acme', object: 'search-cluster:prod', linkType: 'dependsOn' },
    { subject: 'collection:products', object: 'search-cluster:prod', linkType: 'dependsOn' },
  ]) {
    const put = await call(app, 'PUT', '/api/links', link);
    assert.equal(put.status, 200, JSON.stringify(put.body));
  }
  return { secrets, ruleIds: [draft.id, live.id] };
}

/** A document without what differs between two exports of the same objects. */
export function comparable<T extends { metadata: Record<string, unknown> }>(document: T): T {
  const { exportedAt: _at, ...metadata } = document.metadata;
  return { ...document, metadata } as T;
}

/** A query profile `main` of the app `shop` (after seedShop) using its cluster, studio and instance, with a key. */
export async function seedProfile(app: FastifyInstance): Promise<{ key: string }> {
  const profile = await call(app, 'POST', '/api/apps/shop/query-profiles', {
    id: 'main',
    searchCluster: 'prod',
    collection: 'products',
    studio: 'acme',
    typeahead: 'shop-en',
    defaults: { rows: 10, qf: 'name^2 brand' },
    allowedParams: ['fq', 'sort'],
    display: { title: 'name', image: 'image_url' },
  });
  assert.equal(profile.status, 200, JSON.stringify(profile.body));
  const key = await call(app, 'POST', '/api/apps/shop/query-profiles/main/keys');
  assert.equal(key.status, 200, JSON.stringify(key.body));
  return { key: key.body.key };
}
