// Many requests at once, on one node and spread over two nodes of one database: each answers
// what happened to it (one creation, the others a conflict naming the field), never a 500.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { adminAuth, build, buildNodes, engines, skipReason, type TestApp } from '../helpers/app.js';
import { createRule, studioWithToken } from '../rules/api.js';

const admin = { authorization: adminAuth };

/** The same request sent `count` times at once, spread over the nodes; answers status → count. */
async function atOnce(nodes: FastifyInstance[], count: number, request: InjectOptions) {
  const responses = await Promise.all(
    Array.from({ length: count }, (_, i) => nodes[i % nodes.length]!.inject(request)),
  );
  const statuses = new Map<number, number>();
  for (const response of responses)
    statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
  return { responses, statuses: Object.fromEntries(statuses) as Record<number, number> };
}

/** Exactly one creation; every other answer a 409 `conflict` naming `field`. */
function assertOneCreated(
  outcome: Awaited<ReturnType<typeof atOnce>>,
  count: number,
  created: number,
  field: string,
): void {
  assert.deepEqual(outcome.statuses, { [created]: 1, 409: count - 1 });
  for (const response of outcome.responses.filter((r) => r.statusCode === 409)) {
    const body = response.json();
    assert.equal(body.code, 'conflict');
    assert.deepEqual(
      body.errors.map((e: { field: string }) => e.field),
      [field],
    );
  }
}

for (const engine of engines) {
  describe(`concurrent requests on ${engine}`, { skip: await skipReason(engine) }, () => {
    const setups: Array<[string, (t: Parameters<typeof build>[0]) => Promise<TestApp[]>]> = [
      ['one node', async (t) => [await build(t, engine)]],
      ['two nodes', (t) => buildNodes(t, engine, 2)],
    ];
    for (const [setup, nodesOf] of setups) {
      test(`answers one 201 and a conflict naming externalId to concurrent creates of one externalId (${setup})`, async (t) => {
        const nodes = (await nodesOf(t)).map((n) => n.app);
        const access = await studioWithToken(nodes[0]!, 'shop');
        const body = { type: 'redirect', name: 'Go', url: 'https://shop.example.com/', externalId: 'sale' };
        const outcome = await atOnce(nodes, 9, {
          method: 'POST',
          url: '/em-rules',
          headers: access.headers,
          payload: body,
        });
        assertOneCreated(outcome, 9, 201, 'externalId');
        const listed = await nodes[0]!.inject({ url: '/em-rules', headers: access.headers });
        assert.equal(listed.json().page.totalElements, 1);
      });

      test(`answers one creation and conflicts naming the field to concurrent creates of one studio, client, cluster and typeahead instance (${setup})`, async (t) => {
        const nodes = (await nodesOf(t)).map((n) => n.app);
        const post = (url: string, payload: object): InjectOptions => ({
          method: 'POST',
          url,
          headers: admin,
          payload,
        });
        assertOneCreated(
          await atOnce(nodes, 8, post('/api/studios', { id: 'shop', name: 'Shop' })),
          8,
          201,
          'id',
        );
        assertOneCreated(
          await atOnce(nodes, 8, post('/api/studios/shop/clients', { name: 'ci' })),
          8,
          201,
          'name',
        );
        assertOneCreated(
          await atOnce(nodes, 8, post('/api/searchCluster', { id: 'prod', connectString: 'zk1:2181/solr' })),
          8,
          200,
          'id',
        );
        assertOneCreated(
          await atOnce(nodes, 8, post('/api/typeahead/instances', { id: 'shop-en', name: 'Shop' })),
          8,
          201,
          'id',
        );
      });

      test(`creates one link for concurrent puts of it, answering each 200 (${setup})`, async (t) => {
        const nodes = (await nodesOf(t)).map((n) => n.app);
        const link = { subject: 'app:shop', object: 'collection:products', linkType: 'dependsOn' };
        const outcome = await atOnce(nodes, 8, {
          method: 'PUT',
          url: '/api/links',
          headers: admin,
          payload: link,
        });
        assert.deepEqual(outcome.statuses, { 200: 8 });
        const listed = await nodes[0]!.inject({ url: '/api/links?subject=app:shop', headers: admin });
        assert.equal(listed.statusCode, 200, listed.body);
        assert.equal(listed.json().length, 1);
      });

      test(`answers 200 to every one of concurrent publishes of one rule, with one live version (${setup})`, async (t) => {
        const built = await nodesOf(t);
        const nodes = built.map((n) => n.app);
        const access = await studioWithToken(nodes[0]!, 'shop');
        const rule = await createRule(nodes[0]!, access, {
          type: 'redirect',
          name: 'Go',
          url: 'https://shop.example.com/',
        });
        const outcome = await atOnce(nodes, 4, {
          method: 'POST',
          url: `/em-rules/${rule.id}/publish`,
          headers: access.headers,
        });
        assert.deepEqual(outcome.statuses, { 200: 4 });
        for (const response of outcome.responses) assert.equal(response.json().publishState, 'PUBLISHED');
        const stored = await built[0]!.store.db
          .selectFrom('rule')
          .select(['live_version', 'publish_state'])
          .where('id', '=', rule.id)
          .executeTakeFirstOrThrow();
        assert.deepEqual(stored, { live_version: 1, publish_state: 'PUBLISHED' });
      });

      test(`deletes a studio once under concurrent deletes: one 204, then 404 (${setup})`, async (t) => {
        const nodes = (await nodesOf(t)).map((n) => n.app);
        await studioWithToken(nodes[0]!, 'shop');
        const outcome = await atOnce(nodes, 8, {
          method: 'DELETE',
          url: '/api/studios/shop',
          headers: admin,
        });
        assert.deepEqual(outcome.statuses, { 204: 1, 404: 7 });
        for (const response of outcome.responses.filter((r) => r.statusCode === 404)) {
          assert.equal(response.json().code, 'not-found');
        }
      });

      test(`deletes a draft rule once under concurrent deletes: one 204, then 404 (${setup})`, async (t) => {
        const nodes = (await nodesOf(t)).map((n) => n.app);
        const access = await studioWithToken(nodes[0]!, 'shop');
        const rule = await createRule(nodes[0]!, access, {
          type: 'redirect',
          name: 'Go',
          url: 'https://shop.example.com/',
        });
        const outcome = await atOnce(nodes, 8, {
          method: 'DELETE',
          url: `/em-rules/${rule.id}`,
          headers: access.headers,
        });
        assert.deepEqual(outcome.statuses, { 204: 1, 404: 7 });
      });
    }
  });
}
