// Many creates of one unique value at once, on one node and spread over two nodes of one
// database: one creation, the others a conflict naming the field, never a 500.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { InjectOptions } from 'fastify';
import { adminAuth, engines, skipReason } from '../helpers/app.js';
import { assertOneCreated, atOnce, nodeSetups } from '../helpers/concurrency.js';
import { studioWithToken } from '../rules/api.js';

const admin = { authorization: adminAuth };

for (const engine of engines) {
  describe(`concurrent creates on ${engine}`, { skip: await skipReason(engine) }, () => {
    for (const [setup, nodesOf] of nodeSetups(engine)) {
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
    }
  });
}
