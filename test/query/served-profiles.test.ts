// The query endpoint reads profiles, keys and cluster versions from memory: changes made on
// a node apply there at once and on the other nodes within the version poll (1 s in the
// service, 20 ms in these tests).
import assert from 'node:assert/strict';
import { describe, type TestContext, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Tuning } from '../../src/http/area.js';
import { call } from '../helpers/api.js';
import { adminAuth, buildNodes, engines, skipReason } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';
import { startSelectSolr } from './select-solr.js';

const APP = 'shop';

/** Two nodes on one database, a profile `web` over a standalone node, and one key. */
async function setUp(t: TestContext, engine: (typeof engines)[number], tuning?: Tuning) {
  const [one, two] = await buildNodes(t, engine, 2, tuning ? { tuning } : {});
  const solr = await startSelectSolr();
  t.after(() => solr.close());
  const a = one!.app;
  const b = two!.app;
  await b.ready();
  const cluster = await call(a, 'POST', `/api/apps/${APP}/searchCluster`, {
    id: 'solr',
    cloud: false,
    connectString: solr.baseUrl,
  });
  assert.equal(cluster.status, 200, JSON.stringify(cluster.body));
  const profile = await call(a, 'POST', `/api/apps/${APP}/query-profiles`, {
    id: 'web',
    searchCluster: 'solr',
    collection: 'products',
  });
  assert.equal(profile.status, 200, JSON.stringify(profile.body));
  const key = await call(a, 'POST', `/api/apps/${APP}/query-profiles/web/keys`);
  assert.equal(key.status, 200);
  const query = (app: FastifyInstance, auth = `Bearer ${key.body.key}`) =>
    call(app, 'GET', `/api/apps/${APP}/query/web?q=kettle`, undefined, auth);
  return { a, b, storeA: one!.store, keyId: key.body.id as string, query, solr };
}

for (const engine of engines) {
  describe(`Query profiles served from memory on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('a new profile and key work on the other node within the poll interval', async (t) => {
      const { b, query } = await setUp(t, engine);
      await eventually(async () => (await query(b)).status === 200, { within: 2000 });
    });

    test('a revoked key stops at once on its node and within 2 s on the other', async (t) => {
      const { a, b, keyId, query } = await setUp(t, engine);
      assert.equal((await query(a)).status, 200);
      await eventually(async () => (await query(b)).status === 200, { within: 2000 });
      const revoked = await call(a, 'DELETE', `/api/apps/${APP}/query-profiles/web/keys/${keyId}`);
      assert.equal(revoked.status, 204);
      const here = await query(a);
      assert.equal(here.status, 401, 'refused at once on the node that revoked it');
      assert.equal(here.body.code, 'unauthorized');
      await eventually(async () => (await query(b)).status === 401, { within: 2000 });
      assert.equal((await query(a, adminAuth)).status, 200, 'the profile itself still answers');
    });

    test('a deleted profile stops at once on its node and within 2 s on the other', async (t) => {
      const { a, b, query } = await setUp(t, engine);
      await eventually(async () => (await query(b, adminAuth)).status === 200, { within: 2000 });
      assert.equal((await call(a, 'DELETE', `/api/apps/${APP}/query-profiles/web`)).status, 204);
      assert.equal((await query(a, adminAuth)).status, 404, 'gone at once on the node that deleted it');
      assert.equal((await query(a)).status, 401, 'its keys went with it');
      await eventually(async () => (await query(b, adminAuth)).status === 404, { within: 2000 });
      assert.equal((await query(b)).status, 401);
    });

    test('a changed profile is served at once on its node and within 2 s on the other', async (t) => {
      const { a, b, query, solr } = await setUp(t, engine);
      await eventually(async () => (await query(b)).status === 200, { within: 2000 });
      assert.equal(solr.received.at(-1)?.get('qf'), null);
      const put = await call(a, 'PUT', `/api/apps/${APP}/query-profiles/web`, {
        searchCluster: 'solr',
        collection: 'products',
        defaults: { qf: 'title' },
      });
      assert.equal(put.status, 200, JSON.stringify(put.body));
      assert.equal((await query(a)).status, 200);
      assert.equal(solr.received.at(-1)?.get('qf'), 'title');
      await eventually(
        async () => {
          if ((await query(b)).status !== 200) return false;
          return solr.received.at(-1)?.get('qf') === 'title';
        },
        { within: 2000 },
      );
    });

    test('a query with a key reads nothing from the database', async (t) => {
      // Neither the change feed nor the webhook outbox polls, nor is the batch of response
      // signals written, while the statements are counted (the nodes of other tests poll every
      // 20 ms, the outbox and the batch every second), so every statement counted would be the
      // request path's.
      const { a, storeA, query } = await setUp(t, engine, {
        changePollMs: 3_600_000,
        syncPollMs: 3_600_000,
        searchLogFlushMs: 3_600_000,
      });
      assert.equal((await query(a)).status, 200);
      type Execute = (compiled: { sql: string }, ...rest: unknown[]) => Promise<unknown>;
      const executor = storeA.db.getExecutor() as unknown as { executeQuery: Execute };
      const execute = executor.executeQuery.bind(executor);
      const statements: string[] = [];
      executor.executeQuery = (compiled, ...rest) => {
        statements.push(compiled.sql);
        return execute(compiled, ...rest);
      };
      t.after(() => {
        executor.executeQuery = execute;
      });
      for (let i = 0; i < 20; i++) assert.equal((await query(a)).status, 200);
      assert.deepEqual(statements, []);
    });
  });
}
