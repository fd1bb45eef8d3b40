// Numbers are finite and within their documented bounds, or the request is a 400 naming the
// field and nothing is stored; strings stay strings.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { build, contractTest, engines, skipReason } from '../helpers/app.js';
import { assertNoSearchCounted, sendRaw } from '../helpers/raw-request.js';
import { studioWithToken } from '../rules/api.js';
import { createInstance } from '../typeahead/helpers.js';

// What query strings send for "a number too big to be one".
const HUGE = ['1e309', 'Infinity', '2e308', '-1e309', '1e21', '99999999999999999999999'];

function assertRefused(
  answer: { status: number; body: { code: string; errors?: Array<{ field: string }> } },
  code: string,
  field: string,
) {
  assert.equal(answer.status, 400, JSON.stringify(answer.body));
  assert.equal(answer.body.code, code);
  assert.ok(
    answer.body.errors?.some((error) => error.field === field),
    `${field} not named in ${JSON.stringify(answer.body)}`,
  );
}

for (const engine of engines) {
  describe(`numbers on ${engine}`, { skip: await skipReason(engine) }, () => {
    const contract = contractTest(engine);
    contract(
      'refuses infinite and huge numbers in query strings with 400 naming the parameter',
      async (t) => {
        const { app } = await build(t, engine);
        const instance = await createInstance(app);
        const cases = [
          ['/api/links?limit=', 'limit'],
          ['/api/links?offset=', 'offset'],
          ['/api/links/directed?resource=app:shop&limit=', 'limit'],
          ['/api/links/directed?resource=app:shop&offset=', 'offset'],
          [`/api/typeahead/instances/${instance.id}/suggestions?limit=`, 'limit'],
        ] as const;
        for (const [url, field] of cases) {
          for (const value of HUGE) {
            assertRefused(await sendRaw(app, 'GET', `${url}${value}`), 'invalid-parameter', field);
          }
        }
        for (const value of HUGE) {
          const suggestions = await sendRaw(app, 'GET', `/typeahead/suggestions?limit=${value}`, {
            headers: { authorization: `Embed ${instance.embedToken}` },
          });
          assertRefused(suggestions, 'invalid-parameter', 'limit');
          const rotation = `/api/typeahead/instances/${instance.id}/embed-token?graceSeconds=${value}`;
          assertRefused(await sendRaw(app, 'POST', rotation), 'invalid-parameter', 'graceSeconds');
        }
      },
    );

    test('still takes numbers within bounds in query strings', async (t) => {
      const { app } = await build(t, engine);
      assert.equal((await sendRaw(app, 'GET', '/api/links?limit=10000&offset=1000000000')).status, 200);
      assert.equal((await sendRaw(app, 'GET', '/api/links?offset=1000000001')).status, 400);
    });

    contract('refuses an infinite search-cluster integer and stores nothing', async (t) => {
      const { app } = await build(t, engine);
      const fields = [
        'zkClientTimeout',
        'zkConnectTimeout',
        'bufferCommitWithin',
        'bufferFlushInterval',
        'bufferSize',
        'concurrency',
      ];
      for (const field of fields) {
        for (const value of [
          '1e309',
          '-1e309',
          '"1e309"',
          '"Infinity"',
          '1e21',
          '"99999999999999999999999"',
        ]) {
          const json = `{"id":"c1","connectString":"zk:2181","${field}":${value}}`;
          assertRefused(await sendRaw(app, 'POST', '/api/searchCluster', { json }), 'invalid-body', field);
          assert.equal((await sendRaw(app, 'GET', '/api/searchCluster/c1')).status, 404);
        }
      }
      assert.equal((await sendRaw(app, 'GET', '/api/searchCluster')).status, 200);
    });

    test('takes search-cluster integers and booleans as plain strings, and nothing else', async (t) => {
      const { app } = await build(t, engine);
      const json = '{"id":"c2","connectString":"zk:2181","bufferSize":"300","cloud":"true"}';
      const created = await sendRaw(app, 'POST', '/api/searchCluster', { json });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      assert.equal(created.body.bufferSize, 300);
      assert.equal(created.body.cloud, true);
      const wrong = [
        ['{"connectString":"zk:2181","bufferSize":"3e2"}', 'bufferSize'],
        ['{"connectString":"zk:2181","bufferSize":true}', 'bufferSize'],
        ['{"connectString":"zk:2181","cloud":1}', 'cloud'],
        ['{"connectString":2181}', 'connectString'],
        [
          '{"connectString":"zk:2181","authConfig":{"authType":"BASIC","username":12,"password":"p"}}',
          'authConfig.username',
        ],
      ] as const;
      for (const [json, field] of wrong) {
        assertRefused(await sendRaw(app, 'PUT', '/api/searchCluster/c2', { json }), 'invalid-body', field);
      }
      assert.equal((await sendRaw(app, 'GET', '/api/searchCluster/c2')).body.bufferSize, 300);
    });

    contract('refuses infinite typeahead settings and keeps the instance as it was', async (t) => {
      const { app } = await build(t, engine);
      const instance = await createInstance(app);
      const before = await sendRaw(app, 'GET', `/api/typeahead/instances/${instance.id}`);
      for (const field of ['topTermsWindowDays', 'minCount', 'cacheMaxAgeSeconds']) {
        const create = await sendRaw(app, 'POST', '/api/typeahead/instances', {
          json: `{"id":"other","name":"x","${field}":1e309}`,
        });
        assertRefused(create, 'invalid-body', field);
        const patch = await sendRaw(app, 'PATCH', `/api/typeahead/instances/${instance.id}`, {
          json: `{"${field}":-1e309}`,
        });
        assertRefused(patch, 'invalid-body', field);
        assertRefused(
          await sendRaw(app, 'PATCH', `/api/typeahead/instances/${instance.id}`, {
            json: `{"${field}":"7"}`,
          }),
          'invalid-body',
          field,
        );
      }
      assert.equal((await sendRaw(app, 'GET', '/api/typeahead/instances/other')).status, 404);
      assert.deepEqual(await sendRaw(app, 'GET', `/api/typeahead/instances/${instance.id}`), before);
      const list = await sendRaw(app, 'GET', '/api/typeahead/instances');
      assert.equal(list.status, 200);
      assert.equal(list.body.length, 1);
    });

    contract('refuses an infinite search-log count, in JSON and NDJSON, and counts nothing', async (t) => {
      const { app } = await build(t, engine);
      const instance = await createInstance(app);
      const url = `/api/typeahead/instances/${instance.id}/search-logs`;
      assertRefused(
        await sendRaw(app, 'POST', url, { json: '[{"query":"shoes","count":1e309}]' }),
        'invalid-body',
        '[0].count',
      );
      assertRefused(
        await sendRaw(app, 'POST', url, {
          json: '{"query":"boots"}\n{"query":"shoes","count":1e309}\n',
          contentType: 'application/x-ndjson',
        }),
        'invalid-body',
        '[1].count',
      );
      assertRefused(
        await sendRaw(app, 'POST', url, { json: '[{"query":"shoes","count":"5"}]' }),
        'invalid-body',
        '[0].count',
      );
      await assertNoSearchCounted(app, instance.id);
    });

    contract('refuses infinite rule numbers and numbers sent for rule text', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'acme');
      const headers = access.headers;
      const base = '"name":"r","fieldName":"brand","fieldValues":["x"]';
      const cases = [
        [`{"type":"boostList",${base},"boost":1e309}`, 'boost'],
        [`{"type":"boostList",${base},"precedence":-1e309}`, 'precedence'],
        [
          '{"type":"pinned","name":"p","pinnedValues":[{"value":"x","position":1e309}]}',
          'pinnedValues[0].position',
        ],
        ['{"type":"blockList","name":-1e309,"fieldName":"brand","fieldValues":["x"]}', 'name'],
        ['{"type":"blockList","name":"r","fieldName":"brand","fieldValues":[12]}', 'fieldValues[0]'],
        ['{"type":"blockList","name":"r","fieldName":"brand","fieldValues":["x"],"tags":[true]}', 'tags[0]'],
      ] as const;
      for (const [json, field] of cases) {
        assertRefused(await sendRaw(app, 'POST', '/em-rules', { json, headers }), 'invalid-body', field);
      }
      const listing = await sendRaw(app, 'GET', '/em-rules', { headers });
      assert.equal(listing.status, 200);
      assert.equal(listing.body.content.length, 0);
    });

    contract('refuses numbers and booleans sent for a studio name', async (t) => {
      const { app } = await build(t, engine);
      for (const value of ['-1e309', '12', 'true', 'null']) {
        const answer = await sendRaw(app, 'POST', '/api/studios', { json: `{"id":"s1","name":${value}}` });
        assertRefused(answer, 'invalid-body', 'name');
      }
      assert.equal((await sendRaw(app, 'GET', '/api/studios/s1')).status, 404);
      assertRefused(
        await sendRaw(app, 'POST', '/api/typeahead/instances', { json: '{"name":12}' }),
        'invalid-body',
        'name',
      );
    });
  });
}
