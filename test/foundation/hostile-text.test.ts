// Text is well-formed Unicode without NUL, or the request is a 400 naming the field; what is
// acknowledged is exactly what is stored and read back, on either engine.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { build, contractTest, engines, skipReason } from '../helpers/app.js';
import { assertNoSearchCounted, sendRaw } from '../helpers/raw-request.js';
import { studioWithToken } from '../rules/api.js';
import { createInstance } from '../typeahead/helpers.js';

// JSON escapes, so the request body itself stays valid JSON.
const NUL = '\\u0000';
const LONE_HIGH = '\\ud800';
const LONE_LOW = '\\udc00';

function assertRefused(
  answer: { status: number; body: { code: string; errors?: Array<{ field: string }> } },
  code: string,
  field: string,
) {
  assert.equal(answer.status, 400, JSON.stringify(answer.body));
  assert.equal(answer.body.code, code);
  assert.deepEqual(
    answer.body.errors?.map((error) => error.field),
    [field],
    JSON.stringify(answer.body),
  );
}

for (const engine of engines) {
  describe(`text on ${engine}`, { skip: await skipReason(engine) }, () => {
    const contract = contractTest(engine);
    contract(
      'refuses JSON nested deeper than 64 levels with 400, wherever it is sent, and stores nothing',
      async (t) => {
        const { app } = await build(t, engine);
        const deep = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;
        const deepObject = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
        // 5,000 levels once made history's redaction overflow the call stack (a 500).
        for (const data of [deep(5_000), deepObject(5_000), deep(64)]) {
          const answer = await sendRaw(app, 'POST', '/api/history', {
            json: `{"object":"pipeline:web","action":"deploy","summary":"deep","data":${data}}`,
          });
          assertRefused(answer, 'invalid-body', 'body');
          assert.match(JSON.stringify(answer.body), /more than 64 levels deep/);
        }
        const rule = await sendRaw(app, 'POST', '/api/studios', { json: `{"id":"s1","name":${deep(100)}}` });
        assertRefused(rule, 'invalid-body', 'body');
        const listed = await sendRaw(app, 'GET', '/api/history?object=pipeline:web');
        assert.equal(listed.body.page.totalElements, 0);
        // Within the bound, deep data is taken as any other.
        const fine = await sendRaw(app, 'POST', '/api/history', {
          json: `{"object":"pipeline:web","action":"deploy","summary":"deep","data":{"x":${deep(60)}}}`,
        });
        assert.equal(fine.status, 201, JSON.stringify(fine.body));
      },
    );

    contract(
      'refuses NUL and lone surrogates in admin bodies, naming the field, and stores nothing',
      async (t) => {
        const { app } = await build(t, engine);
        for (const bad of [NUL, LONE_HIGH, LONE_LOW, `a${LONE_LOW}${LONE_HIGH}b`]) {
          assertRefused(
            await sendRaw(app, 'POST', '/api/studios', { json: `{"id":"s1","name":"Acme${bad}"}` }),
            'invalid-body',
            'name',
          );
          assertRefused(
            await sendRaw(app, 'PUT', '/api/links', {
              json: `{"subject":"app:a${bad}","object":"b","linkType":"dependsOn"}`,
            }),
            'invalid-body',
            'subject',
          );
          assertRefused(
            await sendRaw(app, 'POST', '/api/typeahead/instances', {
              json: `{"name":"x","allowedOrigins":["*${bad}"]}`,
            }),
            'invalid-body',
            'allowedOrigins[0]',
          );
          assertRefused(
            await sendRaw(app, 'POST', '/api/searchCluster', {
              json: `{"id":"c","connectString":"zk:2181","authConfig":{"authType":"BASIC","username":"u${bad}","password":"p"}}`,
            }),
            'invalid-body',
            'authConfig.username',
          );
        }
        assert.equal((await sendRaw(app, 'GET', '/api/studios/s1')).status, 404);
        assert.deepEqual((await sendRaw(app, 'GET', '/api/links')).body, []);
        assert.deepEqual((await sendRaw(app, 'GET', '/api/typeahead/instances')).body, []);
        assert.deepEqual((await sendRaw(app, 'GET', '/api/searchCluster')).body, []);
      },
    );

    contract('refuses the ids . and .., which no URL can address', async (t) => {
      const { app } = await build(t, engine);
      for (const id of ['.', '..']) {
        assertRefused(
          await sendRaw(app, 'POST', '/api/studios', { json: JSON.stringify({ id, name: 'n' }) }),
          'invalid-body',
          'id',
        );
        assertRefused(
          await sendRaw(app, 'POST', '/api/searchCluster', {
            json: JSON.stringify({ id, connectString: 'zk:2181' }),
          }),
          'invalid-body',
          'id',
        );
      }
      assert.equal(
        (await sendRaw(app, 'POST', '/api/studios', { json: '{"id":".a.","name":"n"}' })).status,
        201,
      );
      assert.equal((await sendRaw(app, 'GET', '/api/studios/.a.')).status, 200);
      assert.deepEqual((await sendRaw(app, 'GET', '/api/searchCluster')).body, []);
    });

    contract(
      'refuses NUL in member names, naming the member as JSON writes it, and the first fault first',
      async (t) => {
        const { app } = await build(t, engine);
        const answer = await sendRaw(app, 'POST', '/api/studios', {
          json: `{"id":"s1","name":"n","x${NUL}":1}`,
        });
        assertRefused(answer, 'invalid-body', 'x\\u0000');
        const both = await sendRaw(app, 'POST', '/api/studios', {
          json: `{"id":"s${NUL}","name":"n${NUL}"}`,
        });
        assertRefused(both, 'invalid-body', 'id');
      },
    );

    contract('refuses NUL and lone surrogates in rule fields and bulk rules', async (t) => {
      const { app } = await build(t, engine);
      const { headers } = await studioWithToken(app, 'acme');
      const rule = (override: string) =>
        `{"type":"blockList","name":"r","fieldName":"brand","fieldValues":["x"]${override}}`;
      const cases = [
        [rule(`,"name":"r${NUL}"`), 'name'],
        [rule(`,"tags":["ok","t${LONE_HIGH}"]`), 'tags[1]'],
        [rule(`,"fieldValues":["x${NUL}"]`), 'fieldValues[0]'],
        [
          rule(`,"conditions":{"fieldValues":[{"fieldName":"f","values":["v${LONE_LOW}"]}]}`),
          'conditions.fieldValues[0].values[0]',
        ],
        [rule(`,"externalId":"e${NUL}"`), 'externalId'],
      ] as const;
      for (const [json, field] of cases) {
        assertRefused(await sendRaw(app, 'POST', '/em-rules', { json, headers }), 'invalid-body', field);
      }
      assertRefused(
        await sendRaw(app, 'POST', '/em-rules/bulk', {
          json: `{"create":[${rule(`,"name":"b${NUL}"`)}]}`,
          headers,
        }),
        'invalid-body',
        'create[0].name',
      );
      assert.equal((await sendRaw(app, 'GET', '/em-rules', { headers })).body.content.length, 0);
    });

    contract('refuses NUL in path ids and query parameters with invalid-parameter', async (t) => {
      const { app } = await build(t, engine);
      const { headers } = await studioWithToken(app, 'acme');
      assertRefused(await sendRaw(app, 'GET', '/em-rules/%00', { headers }), 'invalid-parameter', 'id');
      assertRefused(await sendRaw(app, 'DELETE', '/em-rules/a%00b', { headers }), 'invalid-parameter', 'id');
      assertRefused(
        await sendRaw(app, 'GET', '/em-rules?searchQuery=shoe%00', { headers }),
        'invalid-parameter',
        'searchQuery',
      );
      assertRefused(
        await sendRaw(app, 'GET', '/em-rules?tags=a&tags=%00', { headers }),
        'invalid-parameter',
        'tags[1]',
      );
      assertRefused(await sendRaw(app, 'GET', '/api/links?subject=app:%00'), 'invalid-parameter', 'subject');
      assertRefused(await sendRaw(app, 'GET', '/api/studios/%00'), 'invalid-parameter', 'id');
      const instance = await createInstance(app);
      const suggestions = await sendRaw(app, 'GET', '/typeahead/suggestions?prefix=a%00', {
        headers: { authorization: `Embed ${instance.embedToken}` },
      });
      assertRefused(suggestions, 'invalid-parameter', 'prefix');
    });

    contract(
      'refuses NUL and lone surrogates in search logs, in JSON and NDJSON, and counts nothing',
      async (t) => {
        const { app } = await build(t, engine);
        const instance = await createInstance(app);
        const url = `/api/typeahead/instances/${instance.id}/search-logs`;
        assertRefused(
          await sendRaw(app, 'POST', url, { json: `[{"query":"shoes"},{"query":"bo${NUL}ots"}]` }),
          'invalid-body',
          '[1].query',
        );
        assertRefused(
          await sendRaw(app, 'POST', url, {
            json: `{"query":"shoes"}\n{"query":"boots${LONE_HIGH}"}\n`,
            contentType: 'application/x-ndjson',
          }),
          'invalid-body',
          '[1].query',
        );
        await assertNoSearchCounted(app, instance.id);
      },
    );

    contract(
      'answers a token request with NUL in the client id, in the form or in Basic, in OAuth2 form',
      async (t) => {
        const { app } = await build(t, engine);
        const response = await app.inject({
          method: 'POST',
          url: '/oauth2/token',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: 'grant_type=client_credentials&client_id=a%00&client_secret=b',
        });
        assert.equal(response.statusCode, 400, response.body);
        assert.equal(response.json().error, 'invalid_request');
        const basic = await app.inject({
          method: 'POST',
          url: '/oauth2/token',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            authorization: `Basic ${Buffer.from('a%00:b').toString('base64')}`,
          },
          payload: 'grant_type=client_credentials',
        });
        assert.equal(basic.statusCode, 400, basic.body);
        assert.equal(basic.json().error, 'invalid_request');
      },
    );

    test('stores and reads back exactly the text it acknowledged, astral characters included', async (t) => {
      const { app } = await build(t, engine);
      const name = 'Ünïcödé 😀 ❤ \u{10FFFF} \uFFFD 表';
      const created = await sendRaw(app, 'POST', '/api/studios', {
        json: JSON.stringify({ id: 's1', name }),
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.name, name);
      assert.equal((await sendRaw(app, 'GET', '/api/studios/s1')).body.name, name);
      const { headers } = await studioWithToken(app, 'acme');
      const rule = { type: 'blockList', name, tags: [name], fieldName: 'brand', fieldValues: [name] };
      const stored = await sendRaw(app, 'POST', '/em-rules', { json: JSON.stringify(rule), headers });
      assert.equal(stored.status, 201, JSON.stringify(stored.body));
      const read = await sendRaw(app, 'GET', `/em-rules/${stored.body.id}`, { headers });
      assert.deepEqual([read.body.name, read.body.tags, read.body.fieldValues], [name, [name], [name]]);
    });
  });
}
