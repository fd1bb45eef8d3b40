// An update that sends no field is never a SQL error: where a route's fields are each optional
// it changes nothing and answers 200 with the resource as it is; where the body is the whole
// resource, it is a 400 naming the missing fields.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { adminAuth, build, contractTest, engines, skipReason } from '../helpers/app.js';
import { createRule, studioWithToken } from '../rules/api.js';

const admin = { authorization: adminAuth };

function send(
  app: FastifyInstance,
  method: 'PUT' | 'PATCH',
  url: string,
  headers: Record<string, string> = admin,
) {
  return app.inject({ method, url, headers, payload: {} });
}

for (const engine of engines) {
  describe(`empty updates on ${engine}`, { skip: await skipReason(engine) }, () => {
    const contract = contractTest(engine);
    test('changes nothing of a studio put with no field, answering it as it is', async (t) => {
      const { app } = await build(t, engine);
      await studioWithToken(app, 'shop');
      const before = await app.inject({ url: '/api/studios/shop', headers: admin });
      for (const url of ['/api/studios/shop', '/api/apps/web/studios/shop']) {
        const response = await send(app, 'PUT', url);
        assert.equal(response.statusCode, 200, response.body);
        assert.deepEqual(response.json(), before.json());
      }
      assert.equal((await send(app, 'PUT', '/api/studios/none')).statusCode, 404);
    });

    test('answers 200 to a typeahead instance or terms patch with no field, keeping settings and terms', async (t) => {
      const { app } = await build(t, engine);
      const created = await app.inject({
        method: 'POST',
        url: '/api/typeahead/instances',
        headers: admin,
        payload: { id: 'shop-en', name: 'Shop', minCount: 5 },
      });
      assert.equal(created.statusCode, 201);
      const patched = await send(app, 'PATCH', '/api/typeahead/instances/shop-en');
      assert.equal(patched.statusCode, 200, patched.body);
      assert.equal(patched.json().minCount, 5);
      assert.equal(patched.json().name, 'Shop');
      const terms = await send(app, 'PATCH', '/api/typeahead/instances/shop-en/terms');
      assert.equal(terms.statusCode, 200, terms.body);
    });

    contract(
      'answers 400 naming the missing fields to an empty replacement of terms, cluster, link or rule',
      async (t) => {
        const { app } = await build(t, engine);
        const access = await studioWithToken(app, 'shop');
        const rule = await createRule(app, access, {
          type: 'redirect',
          name: 'Go',
          url: 'https://shop.example.com/',
        });
        await app.inject({
          method: 'POST',
          url: '/api/typeahead/instances',
          headers: admin,
          payload: { id: 'en', name: 'En' },
        });
        await app.inject({
          method: 'POST',
          url: '/api/searchCluster',
          headers: admin,
          payload: { id: 'prod', connectString: 'zk1:2181/solr' },
        });
        const cases: Array<[string, string, Record<string, string>, string]> = [
          ['PUT', '/api/typeahead/instances/en/terms', admin, 'included'],
          ['PUT', '/api/searchCluster/prod', admin, 'connectString'],
          ['PUT', '/api/links', admin, 'subject'],
          ['PUT', `/em-rules/${rule.id}`, access.headers, 'name'],
        ];
        for (const [method, url, headers, field] of cases) {
          const response = await send(app, method as 'PUT', url, headers);
          assert.equal(response.statusCode, 400, `${url}: ${response.body}`);
          assert.equal(response.json().code, 'invalid-body');
          assert.ok(
            response.json().errors.some((e: { field: string }) => e.field === field),
            `${url} names ${field}: ${response.body}`,
          );
        }
      },
    );
  });
}
