import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { build, contractTest, engines, skipReason } from '../helpers/app.js';
import { createRule, type RuleJson, studioWithToken } from './api.js';

interface Parameter {
  name: string;
  in: string;
  schema: {
    minimum?: number;
    maximum?: number;
    default?: unknown;
    enum?: string[];
    items?: { enum?: string[] };
  };
}

for (const engine of engines) {
  describe(`listing parameters on ${engine}`, { skip: await skipReason(engine) }, () => {
    const contract = contractTest(engine);
    contract('the OpenAPI document shows their bounds, defaults and enums', async (t) => {
      const { app } = await build(t, engine);
      const document = (await app.inject({ url: '/api/openapi.json' })).json();
      for (const path of ['/em-rules', '/studios/{studioId}/em-rules']) {
        const parameters = document.paths[path].get.parameters as Parameter[];
        const schemaOf = (name: string) =>
          parameters.find((p) => p.in === 'query' && p.name === name)!.schema;
        assert.deepEqual(
          [schemaOf('page').minimum, schemaOf('page').maximum, schemaOf('page').default],
          [0, 999_999_999, 0],
        );
        assert.deepEqual(
          [schemaOf('size').minimum, schemaOf('size').maximum, schemaOf('size').default],
          [1, 1000, 20],
        );
        assert.deepEqual(schemaOf('publishState').enum, ['DRAFT', 'PUBLISHED', 'PUBLISHED_WITH_DRAFT_EDITS']);
        assert.deepEqual(schemaOf('contentType').enum, ['RULE', 'QUERY_REWRITE']);
        assert.ok(schemaOf('sort').items?.enum?.includes('effectiveEnd'));
        assert.ok(schemaOf('sort').items?.enum?.includes('textSearchRelevance'));
        assert.ok(schemaOf('fields').items?.enum?.includes('FUSION_SYNC_STATUS'));
      }
    });

    test('take lists comma-separated or repeated and enum values in any case', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const redirect = { type: 'redirect', url: 'https://shop.example/x' };
      await createRule(app, access, { ...redirect, name: 'B' });
      await createRule(app, access, { ...redirect, name: 'A' });
      const list = async (query: string) => {
        const response = await app.inject({ url: `/em-rules?${query}`, headers: access.headers });
        assert.equal(response.statusCode, 200, `${query}: ${response.body}`);
        return response.json<{ content: RuleJson[]; page: { size: number } }>();
      };
      const names = async (query: string) => (await list(query)).content.map((rule) => rule.name);
      assert.deepEqual(await names('sort=name,DESC'), ['B', 'A']);
      assert.deepEqual(await names('sort=name&sort=Asc'), ['A', 'B']);
      assert.deepEqual(await names('publishState=draft&contentType=rule&sort=name'), ['A', 'B']);
      const extras = await list('fields=conflicts,fusion_sync_status&fields=MIGRATION');
      assert.ok(extras.content.every((rule) => 'conflicts' in rule && 'stagingSyncStatus' in rule));
      assert.equal((await list('')).page.size, 20);
    });

    contract(
      'answer the spec’s message for a bad page, size, sort or fields, naming the parameter',
      async (t) => {
        const { app } = await build(t, engine);
        const access = await studioWithToken(app, 'shop');
        const cases: Array<[string, string, string]> = [
          ['page=1000000000', 'page', 'page must be an integer ≥ 0'],
          ['page=', 'page', 'page must be an integer ≥ 0'],
          ['size=1.5', 'size', 'size must be an integer from 1 to 1000'],
          ['sort=name,color', 'sort', 'sort property must be one of name,'],
          ['fields=CONFLICTS,ALL', 'fields', 'fields must be among TARGETED_DOCUMENTS,'],
          ['publishState=LIVE', 'publishState', 'publishState must be one of DRAFT, PUBLISHED'],
        ];
        for (const [query, field, message] of cases) {
          const response = await app.inject({ url: `/em-rules?${query}`, headers: access.headers });
          assert.equal(response.statusCode, 400, query);
          const body = response.json();
          assert.equal(body.code, 'invalid-parameter', query);
          assert.ok(body.message.startsWith(message), `${query}: ${body.message}`);
          assert.deepEqual(
            body.errors.map((error: { field: string }) => error.field),
            [field],
            query,
          );
        }
      },
    );
  });
}
