import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { recordChange } from '../../src/history/service.js';
import { call } from '../helpers/api.js';
import { build, buildNodes, contractTest, engines, skipReason } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';
import { createRule, studioWithToken } from '../rules/api.js';

const block = { type: 'blockList', name: 'Block discontinued', fieldName: 'id', fieldValues: ['P1'] };
const misspelling = { type: 'misspelling', misspelling: 'lapotp', correction: 'laptop' };

interface Event {
  id: string;
  at: string;
  actor: string;
  action: string;
  object: string;
  summary: string;
  before?: unknown;
  after?: unknown;
  data?: unknown;
}

/** Every event of the history, oldest first. */
async function history(app: FastifyInstance, query = ''): Promise<Event[]> {
  const answer = await call(app, 'GET', `/api/history?size=1000${query}`);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return (answer.body.content as Event[]).reverse();
}

/** The [actor, action, object] of each event, oldest first. */
async function trail(app: FastifyInstance, query = ''): Promise<string[][]> {
  return (await history(app, query)).map((e) => [e.actor, e.action, e.object]);
}

for (const engine of engines) {
  describe(`history on ${engine}`, { skip: await skipReason(engine) }, () => {
    const contract = contractTest(engine);
    test('records each change of links, clusters, typeahead and studios as the admin', async (t) => {
      const { app } = await build(t, engine);
      const link = { subject: 'a', object: 'b', linkType: 'dependsOn' };
      assert.equal((await call(app, 'PUT', '/api/links', link)).status, 200);
      assert.equal(
        (await call(app, 'DELETE', '/api/links?subject=a&object=b&linkType=dependsOn')).status,
        204,
      );
      const cluster = { id: 'prod', connectString: 'zk1:2181/solr' };
      assert.equal((await call(app, 'POST', '/api/searchCluster', cluster)).status, 200);
      assert.equal(
        (await call(app, 'PUT', '/api/searchCluster/prod', { ...cluster, connectString: 'zk2:2181' })).status,
        200,
      );
      assert.equal((await call(app, 'DELETE', '/api/searchCluster/prod')).status, 204);
      assert.equal(
        (await call(app, 'POST', '/api/typeahead/instances', { id: 'shop-en', name: 'Shop' })).status,
        201,
      );
      assert.equal(
        (await call(app, 'PATCH', '/api/typeahead/instances/shop-en', { name: 'Shop EN' })).status,
        200,
      );
      assert.equal((await call(app, 'POST', '/api/typeahead/instances/shop-en/embed-token')).status, 200);
      assert.equal((await call(app, 'DELETE', '/api/typeahead/instances/shop-en')).status, 204);
      assert.equal((await call(app, 'POST', '/api/studios', { id: 'shop', name: 'Shop' })).status, 201);
      assert.equal(
        (await call(app, 'PUT', '/api/studios/shop', { syncTargets: ['https://hooks.example.com/a'] }))
          .status,
        200,
      );
      assert.equal((await call(app, 'POST', '/api/studios/shop/sync-target-secrets')).status, 200);
      const client = await call(app, 'POST', '/api/studios/shop/clients', { name: 'ci' });
      assert.equal(client.status, 201);
      assert.equal(
        (await call(app, 'DELETE', `/api/studios/shop/clients/${client.body.clientId}`)).status,
        204,
      );
      assert.equal((await call(app, 'DELETE', '/api/studios/shop')).status, 204);

      assert.deepEqual(await trail(app), [
        ['admin', 'put', 'link:a dependsOn b'],
        ['admin', 'delete', 'link:a dependsOn b'],
        ['admin', 'create', 'search-cluster:prod'],
        ['admin', 'update', 'search-cluster:prod'],
        ['admin', 'delete', 'search-cluster:prod'],
        ['admin', 'create', 'typeahead:shop-en'],
        ['admin', 'update', 'typeahead:shop-en'],
        ['admin', 'rotate-embed-token', 'typeahead:shop-en'],
        ['admin', 'delete', 'typeahead:shop-en'],
        ['admin', 'create', 'studio:shop'],
        ['admin', 'update', 'studio:shop'],
        ['admin', 'rotate-webhook-secrets', 'studio:shop'],
        ['admin', 'create-client', 'studio:shop'],
        ['admin', 'delete-client', 'studio:shop'],
        ['admin', 'delete', 'studio:shop'],
      ]);
      const update = (await history(app, '&object=search-cluster:prod&action=update'))[0]!;
      assert.deepEqual(
        [
          (update.before as { connectString: string }).connectString,
          (update.after as { connectString: string }).connectString,
        ],
        ['zk1:2181/solr', 'zk2:2181'],
      );
    });

    test('records added and removed terms, not whole lists', async (t) => {
      const { app } = await build(t, engine);
      await call(app, 'POST', '/api/typeahead/instances', { id: 'shop-en', name: 'Shop' });
      const many = Array.from({ length: 500 }, (_, i) => `term ${i}`);
      await call(app, 'PUT', '/api/typeahead/instances/shop-en/terms', { included: many, excluded: ['x'] });
      const replaced = await call(app, 'PUT', '/api/typeahead/instances/shop-en/terms', {
        included: [...many.slice(1), 'kettle'],
        excluded: ['x'],
      });
      assert.equal(replaced.status, 200);
      await call(app, 'PATCH', '/api/typeahead/instances/shop-en/terms', { add: { excluded: ['toaster'] } });
      const events = await history(app, '&object=typeahead:shop-en');
      assert.deepEqual(
        events.map((e) => [e.action, e.after]),
        [
          ['create', events[0]!.after],
          ['put-terms', { added: { included: many, excluded: ['x'] }, removed: {} }],
          ['put-terms', { added: { included: ['kettle'] }, removed: { included: ['term 0'] } }],
          ['patch-terms', { added: { excluded: ['toaster'] }, removed: {} }],
        ],
      );
      assert.match(events[2]!.summary, /1 terms added, 1 removed/);
    });

    test('records rule and rewrite edits and bulk work as the API client', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const rule = await createRule(app, access, block);
      const bearer = (method: 'PUT' | 'POST' | 'DELETE', url: string, payload?: object) =>
        app.inject({ method, url, headers: access.headers, ...(payload ? { payload } : {}) });
      assert.equal(
        (await bearer('PUT', `/em-rules/${rule.id}`, { ...block, name: 'Renamed' })).statusCode,
        200,
      );
      assert.equal((await bearer('POST', `/em-rules/${rule.id}/publish`)).statusCode, 200);
      const rewrite = await bearer('POST', '/query-rewrites', misspelling);
      assert.equal(rewrite.statusCode, 201);
      const rewriteId = rewrite.json().id;
      assert.equal((await bearer('POST', `/query-rewrites/${rewriteId}/publish`)).statusCode, 200);
      assert.equal((await bearer('DELETE', `/query-rewrites/${rewriteId}`)).statusCode, 204);
      const rewriteBulk = await bearer('POST', '/query-rewrites/bulk', {
        create: [misspelling, misspelling],
      });
      assert.equal(rewriteBulk.statusCode, 200, rewriteBulk.body);
      const started = await bearer('POST', '/em-rules/bulk', { create: [block, block, block] });
      assert.equal(started.statusCode, 202);
      const { operationId } = started.json();
      await eventually(
        async () => {
          const state = (
            await app.inject({ url: `/em-rules/bulk/${operationId}`, headers: access.headers })
          ).json();
          assert.equal(state.status, 'DONE');
        },
        { within: 30_000 },
      );

      const clientEvents = await history(app, '&actor=client:ci');
      assert.deepEqual(
        clientEvents.map((e) => [e.action, e.object]),
        [
          ['create', `rule:${rule.id}`],
          ['update', `rule:${rule.id}`],
          ['publish', `rule:${rule.id}`],
          ['create', `rewrite:${rewriteId}`],
          ['publish', `rewrite:${rewriteId}`],
          ['delete', `rewrite:${rewriteId}`],
          ['bulk', 'studio:shop'],
          ['bulk', `rule-bulk:${operationId}`],
        ],
      );
      const renamed = clientEvents[1]!;
      assert.equal((renamed.before as { staging: { name: string } }).staging.name, block.name);
      assert.equal((renamed.after as { staging: { name: string } }).staging.name, 'Renamed');
      assert.equal((clientEvents[6]!.after as { created: string[] }).created.length, 2);
      assert.equal((clientEvents[7]!.after as { changed: string[] }).changed.length, 3);
    });

    test('records nothing for a change that fails', async (t) => {
      const { app } = await build(t, engine);
      await call(app, 'POST', '/api/studios', { id: 'shop', name: 'Shop' });
      await call(app, 'POST', '/api/searchCluster', { id: 'prod', connectString: 'zk1:2181' });
      await call(app, 'POST', '/api/typeahead/instances', { id: 'shop-en', name: 'Shop' });
      const access = await studioWithToken(app, 'rules');
      await createRule(app, access, { ...block, externalId: 'blk' });
      const before = (await history(app)).length;
      const again = await app.inject({
        method: 'POST',
        url: '/em-rules',
        headers: access.headers,
        payload: { ...block, externalId: 'blk' },
      });
      assert.equal(again.statusCode, 409);
      assert.equal((await call(app, 'POST', '/api/studios', { id: 'shop', name: 'Again' })).status, 409);
      assert.equal(
        (await call(app, 'POST', '/api/searchCluster', { id: 'prod', connectString: 'zk9:2181' })).status,
        409,
      );
      assert.equal(
        (await call(app, 'POST', '/api/typeahead/instances', { id: 'shop-en', name: 'x' })).status,
        409,
      );
      assert.equal((await call(app, 'DELETE', '/api/studios/none')).status, 404);
      assert.equal(
        (await call(app, 'DELETE', '/api/links?subject=a&object=b&linkType=dependsOn')).status,
        404,
      );
      // Over the limit of curated terms: refused inside the transaction, after the terms were written.
      const tooMany = Array.from({ length: 4001 }, (_, i) => `t${i}`);
      const patched = await call(app, 'PATCH', '/api/typeahead/instances/shop-en/terms', {
        add: { included: tooMany },
      });
      assert.equal(patched.status, 400);
      assert.equal((await history(app)).length, before);
    });

    test('never records a secret', async (t) => {
      const { app } = await build(t, engine);
      const password = 'cluster-password-1234';
      await call(app, 'POST', '/api/searchCluster', {
        id: 'prod',
        connectString: 'zk1:2181',
        authConfig: { authType: 'BASIC', username: 'searchdeck', password },
      });
      const instance = await call(app, 'POST', '/api/typeahead/instances', { id: 'shop-en', name: 'Shop' });
      const rotated = await call(app, 'POST', '/api/typeahead/instances/shop-en/embed-token');
      await call(app, 'POST', '/api/studios', { id: 'shop', name: 'Shop' });
      const changed = await call(app, 'PUT', '/api/studios/shop', {
        syncTargets: ['https://hooks.example.com/a'],
      });
      const secrets = await call(app, 'POST', '/api/studios/shop/sync-target-secrets');
      const client = await call(app, 'POST', '/api/studios/shop/clients', { name: 'ci' });
      const recorded = JSON.stringify(await history(app));
      const given = [
        password,
        instance.body.embedToken,
        rotated.body.embedToken,
        ...JSON.stringify(changed.body.syncTargetSecrets).match(/whsec_[^"]+/g)!,
        ...JSON.stringify(secrets.body).match(/whsec_[^"]+/g)!,
        client.body.clientSecret,
      ];
      assert.ok(
        given.length >= 6 && given.every((s) => typeof s === 'string' && s.length > 8),
        JSON.stringify(given),
      );
      for (const secret of given) assert.ok(!recorded.includes(secret), `recorded: ${secret}`);
      assert.doesNotMatch(recorded, /\*\*\*\*/);
    });

    test('records query profile changes and their keys, never a key or its hash', async (t) => {
      const { app } = await build(t, engine);
      const cluster = { id: 'prod', connectString: 'http://127.0.0.1:1/solr', cloud: false };
      assert.equal((await call(app, 'POST', '/api/apps/shop/searchCluster', cluster)).status, 200);
      const before = (await history(app)).length;
      const profile = { searchCluster: 'prod', collection: 'products', defaults: { rows: 10 } };
      const created = await call(app, 'POST', '/api/apps/shop/query-profiles', { id: 'web', ...profile });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const put = await call(app, 'PUT', '/api/apps/shop/query-profiles/web', { ...profile, timeoutMs: 900 });
      assert.equal(put.status, 200, JSON.stringify(put.body));
      const key = await call(app, 'POST', '/api/apps/shop/query-profiles/web/keys');
      assert.equal(key.status, 200, JSON.stringify(key.body));
      const revoked = await call(app, 'DELETE', `/api/apps/shop/query-profiles/web/keys/${key.body.id}`);
      assert.equal(revoked.status, 204);
      const second = await call(app, 'POST', '/api/apps/shop/query-profiles/web/keys');
      assert.equal((await call(app, 'DELETE', '/api/apps/shop/query-profiles/web')).status, 204);

      const object = 'query-profile:shop/web';
      assert.deepEqual((await trail(app)).slice(before), [
        ['admin', 'create', object],
        ['admin', 'update', object],
        ['admin', 'create-key', object],
        ['admin', 'revoke-key', object],
        ['admin', 'create-key', object],
        ['admin', 'delete', object],
      ]);
      const update = (await history(app, `&object=${object}&action=update`))[0]!;
      assert.deepEqual(
        [
          (update.before as { timeoutMs: number }).timeoutMs,
          (update.after as { timeoutMs: number }).timeoutMs,
        ],
        [5000, 900],
      );
      const keyEvents = await history(app, `&object=${object}&action=create-key`);
      assert.deepEqual(
        keyEvents.map((e) => e.after),
        [{ keyId: key.body.id }, { keyId: second.body.id }],
      );
      const recorded = JSON.stringify(await history(app));
      for (const { id, key: given } of [key.body, second.body]) {
        // The secret follows the key's id; it may itself hold '_' (base64url).
        const secret = given.slice(given.indexOf(`${id}_`) + id.length + 1);
        assert.ok(secret.length >= 32, given);
        const hash = createHash('sha256').update(secret).digest('hex');
        assert.ok(!recorded.includes(secret), 'a key is in the history');
        assert.ok(!recorded.includes(hash), "a key's hash is in the history");
      }
      // Refused changes record nothing.
      const count = (await history(app)).length;
      assert.equal(
        (
          await call(app, 'POST', '/api/apps/shop/query-profiles', {
            id: 'web',
            searchCluster: 'none',
            collection: 'c',
          })
        ).status,
        400,
      );
      assert.equal(
        (await call(app, 'POST', '/api/apps/shop/query-profiles', { id: 'web', ...profile })).status,
        200,
      );
      const recount = (await history(app)).length;
      assert.equal(recount, count + 1);
      assert.equal(
        (await call(app, 'POST', '/api/apps/shop/query-profiles', { id: 'web', ...profile })).status,
        409,
      );
      assert.equal(
        (await call(app, 'DELETE', '/api/apps/shop/query-profiles/web/keys/0123456789abcdef')).status,
        404,
      );
      assert.equal((await call(app, 'DELETE', '/api/apps/shop/query-profiles/none')).status, 404);
      assert.equal((await call(app, 'POST', '/api/apps/shop/query-profiles/none/keys')).status, 404);
      assert.equal((await history(app)).length, recount);
    });

    test('an objects import records its query profiles as the importing admin', async (t) => {
      const { app } = await build(t, engine);
      const document = {
        metadata: { exportedAt: new Date().toISOString(), version: 1, secretsOmitted: [] },
        objects: {
          searchClusters: [{ id: 'prod', connectString: 'http://127.0.0.1:1/solr', cloud: false }],
          queryProfiles: [{ app: 'shop', id: 'web', searchCluster: 'prod', collection: 'products' }],
          studios: [],
          rules: [],
          rewrites: [],
          typeaheadInstances: [],
          links: [{ subject: 'search-cluster:prod', object: 'app:shop', linkType: 'inContextOf' }],
        },
      };
      const dry = await call(app, 'POST', '/api/objects/import?dryRun=true', document);
      assert.equal(dry.status, 200, JSON.stringify(dry.body));
      assert.deepEqual(await history(app, '&object=query-profile:shop/web'), []);
      const imported = await call(app, 'POST', '/api/objects/import', document);
      assert.equal(imported.status, 200, JSON.stringify(imported.body));
      assert.deepEqual(await trail(app, '&object=query-profile:shop/web'), [
        ['admin', 'create', 'query-profile:shop/web'],
      ]);
    });

    test('takes clients’ own events and lists them filtered and paged, newest first', async (t) => {
      let clock = Date.parse('2026-03-01T10:00:00.000Z');
      const { app } = await build(t, engine, { now: () => new Date(clock) });
      const ids: string[] = [];
      for (let i = 0; i < 25; i++) {
        clock += 60_000;
        const posted = await call(app, 'POST', '/api/history', {
          object: i % 2 ? 'pipeline:odd' : 'pipeline:even',
          action: i % 5 ? 'deploy' : 'rollback',
          summary: `deploy ${i}`,
          data: { build: i, nested: { token: 'not kept' } },
        });
        assert.equal(posted.status, 201, JSON.stringify(posted.body));
        assert.equal(posted.body.actor, 'admin');
        assert.deepEqual(posted.body.data, { build: i, nested: {} });
        ids.push(posted.body.id);
      }
      const first = await call(app, 'GET', '/api/history?size=10');
      assert.deepEqual(first.body.page, { size: 10, number: 0, totalElements: 25, totalPages: 3 });
      assert.deepEqual(
        first.body.content.map((e: Event) => e.id),
        ids.slice(15).reverse(),
      );
      const pages = [];
      for (let page = 0; page < 3; page++) {
        pages.push(...(await call(app, 'GET', `/api/history?size=10&page=${page}`)).body.content);
      }
      assert.deepEqual(
        pages.map((e: Event) => e.id),
        [...ids].reverse(),
      );
      const odd = await call(app, 'GET', '/api/history?object=pipeline:odd&action=deploy');
      assert.deepEqual(
        odd.body.content.map((e: Event) => e.summary),
        [23, 21, 19, 17, 13, 11, 9, 7, 3, 1].map((i) => `deploy ${i}`),
      );
      // Events at minutes 1..25 after 10:00: from inclusive, to exclusive.
      const window = await call(app, 'GET', '/api/history?from=2026-03-01T10:03:00Z&to=2026-03-01T10:06:00Z');
      assert.deepEqual(
        window.body.content.map((e: Event) => e.summary),
        ['deploy 4', 'deploy 3', 'deploy 2'],
      );
      assert.equal((await call(app, 'GET', '/api/history?actor=client:ci')).body.page.totalElements, 0);
      const one = await call(app, 'GET', `/api/history/${ids[3]}`);
      assert.equal(one.body.summary, 'deploy 3');
      assert.equal((await call(app, 'GET', '/api/history/unknown')).status, 404);
    });

    contract('refuses bad listing parameters and bodies with the common error body', async (t) => {
      const { app } = await build(t, engine);
      for (const query of [
        'size=0',
        'size=1001',
        'page=-1',
        'from=yesterday',
        'from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z',
      ]) {
        const answer = await call(app, 'GET', `/api/history?${query}`);
        assert.equal(answer.status, 400, query);
        assert.equal(typeof answer.body.code, 'string', query);
      }
      for (const body of [
        {},
        { object: 'x', action: 'y' },
        { object: '', action: 'y', summary: 'z' },
        { object: 'x', action: 'y', summary: 'z', extra: 1 },
      ]) {
        const answer = await call(app, 'POST', '/api/history', body);
        assert.equal(answer.status, 400, JSON.stringify(body));
      }
      assert.equal((await history(app)).length, 0);
    });

    test('prunes events past the retention on the node that holds the lease', async (t) => {
      const now = new Date('2026-06-01T00:00:00.000Z');
      const days = (n: number) => new Date(now.getTime() - n * 86_400_000);
      const [first, second] = await buildNodes(t, engine, 2, {
        now: () => now,
        env: { SEARCHDECK_HISTORY_RETENTION_DAYS: '30' },
      });
      const old = Array.from({ length: 2500 }, () => days(31));
      for (const at of [...old, days(29), days(1)]) {
        await recordChange(first!.store.db, {
          actor: 'system',
          action: 'test',
          object: 'x:1',
          summary: 's',
          at,
        });
      }
      assert.equal(await first!.app.parts.history.runScheduledJob(), true);
      const left = await call(first!.app, 'GET', '/api/history');
      assert.equal(left.body.page.totalElements, 2);
      // The other node finds the lease taken within the hour.
      assert.equal(await second!.app.parts.history.runScheduledJob(), false);
    });
  });
}
