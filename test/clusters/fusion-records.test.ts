// Search-cluster records as Fusion's Search Cluster API writes them: every documented property,
// `bufferCommitWithin` included, is taken and kept, so a record exported from Fusion PUTs back
// and reads the same; what Fusion does not document is still refused, naming it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_MIGRATION_TABLE, type Kysely, sql } from 'kysely';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { call } from '../helpers/api.js';
import { build, contractTest, engines, freshStore, skipReason } from '../helpers/app.js';

// A definition as `GET /api/searchCluster/{id}` of Fusion answers it, with every property its
// Search Cluster API documents set to something other than searchdeck's default.
const exportedFromFusion = {
  id: 'fusion-prod',
  connectString: 'zk1:2181,zk2:2181,zk3:2181/solr',
  cloud: true,
  bufferCommitWithin: 15000,
  bufferFlushInterval: 2000,
  bufferSize: 250,
  concurrency: 4,
  zkClientTimeout: 45000,
  zkConnectTimeout: 30000,
  authConfig: { authType: 'NONE' },
  validateCluster: false,
};

const fields = (body: { errors?: Array<{ field: string }> }) =>
  (body.errors ?? []).map((e) => e.field).sort();

for (const engine of engines) {
  describe(`search-cluster records exported from Fusion on ${engine}`, {
    skip: await skipReason(engine),
  }, () => {
    const contract = contractTest(engine);
    test('PUTs an exported record back and reads every field of it the same', async (t) => {
      const { app } = await build(t, engine);
      const put = await call(app, 'PUT', `/api/searchCluster/${exportedFromFusion.id}`, exportedFromFusion);
      assert.equal(put.status, 200, JSON.stringify(put.body));
      const read = await call(app, 'GET', `/api/searchCluster/${exportedFromFusion.id}`);
      const { createdAt, updatedAt, ...stored } = read.body;
      assert.deepEqual(stored, exportedFromFusion);
      assert.deepEqual(read.body, put.body);
      // And what searchdeck answers goes back too, unchanged (its timestamps are read-only).
      const again = await call(app, 'PUT', `/api/searchCluster/${exportedFromFusion.id}`, read.body);
      assert.equal(again.status, 200, JSON.stringify(again.body));
      const { createdAt: _c, updatedAt: _u, ...storedAgain } = again.body;
      assert.deepEqual(storedAgain, exportedFromFusion);
    });

    test('creates with POST as Fusion is asked to, the app path included', async (t) => {
      const { app } = await build(t, engine);
      const posted = await call(app, 'POST', '/api/apps/shop/searchCluster', exportedFromFusion);
      assert.equal(posted.status, 200, JSON.stringify(posted.body));
      assert.equal(posted.body.bufferCommitWithin, 15000);
      const listed = await call(app, 'GET', '/api/apps/shop/searchCluster');
      assert.deepEqual(listed.body, [posted.body]);
    });

    test('defaults bufferCommitWithin to 10,000 ms, and a PUT without it sets the default again', async (t) => {
      const { app } = await build(t, engine);
      const { bufferCommitWithin: _, ...without } = exportedFromFusion;
      const created = await call(app, 'POST', '/api/searchCluster', without);
      assert.equal(created.body.bufferCommitWithin, 10000);
      await call(app, 'PUT', '/api/searchCluster/fusion-prod', { ...without, bufferCommitWithin: 1 });
      const replaced = await call(app, 'PUT', '/api/searchCluster/fusion-prod', without);
      assert.equal(replaced.body.bufferCommitWithin, 10000);
    });

    test('takes bufferCommitWithin as a plain string too, within its bounds, and -1 for none', async (t) => {
      const { app } = await build(t, engine);
      const url = '/api/searchCluster/fusion-prod';
      assert.equal(
        (await call(app, 'PUT', url, { ...exportedFromFusion, bufferCommitWithin: '5000' })).body
          .bufferCommitWithin,
        5000,
      );
      assert.equal(
        (await call(app, 'PUT', url, { ...exportedFromFusion, bufferCommitWithin: -1 })).body
          .bufferCommitWithin,
        -1,
      );
      assert.equal(
        (await call(app, 'PUT', url, { ...exportedFromFusion, bufferCommitWithin: 2 ** 31 - 1 })).body
          .bufferCommitWithin,
        2 ** 31 - 1,
      );
      for (const wrong of [-2, 2 ** 31, 1.5, '1e4', ' 5000', 'soon', true, null]) {
        const answer = await call(app, 'PUT', url, { ...exportedFromFusion, bufferCommitWithin: wrong });
        assert.equal(answer.status, 400, `${JSON.stringify(wrong)}: ${JSON.stringify(answer.body)}`);
        assert.deepEqual(fields(answer.body), ['bufferCommitWithin'], JSON.stringify(wrong));
      }
      assert.equal((await call(app, 'GET', url)).body.bufferCommitWithin, 2 ** 31 - 1);
    });

    contract('still refuses fields Fusion does not document, naming each, and stores nothing', async (t) => {
      const { app } = await build(t, engine);
      const answer = await call(app, 'PUT', '/api/searchCluster/fusion-prod', {
        ...exportedFromFusion,
        commitWithin: 1000,
        solrParams: {},
      });
      assert.equal(answer.status, 400);
      assert.deepEqual(fields(answer.body), ['commitWithin', 'solrParams']);
      assert.equal((await call(app, 'GET', '/api/searchCluster/fusion-prod')).status, 404);
    });

    test("gives definitions stored before the field existed Fusion's default of 10,000 ms", async (t) => {
      const fresh = await freshStore(engine);
      t.after(() => fresh.close());
      // The database as it was before the migration: the column and its record gone.
      const db = fresh.store.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
      await sql`alter table search_cluster drop column buffer_commit_within`.execute(db);
      await db
        .deleteFrom(DEFAULT_MIGRATION_TABLE)
        .where('name', '=', '0101_search_cluster_commit_within')
        .execute();
      const now = new Date().toISOString();
      await db
        .insertInto('search_cluster')
        .values({
          id: 'old',
          connect_string: 'zk:2181/solr',
          cloud: 1,
          zk_client_timeout: 30000,
          zk_connect_timeout: 60000,
          buffer_flush_interval: 1000,
          buffer_size: 100,
          concurrency: 10,
          validate_cluster: 0,
          auth_type: 'NONE',
          created_at: now,
          updated_at: now,
        })
        .execute();
      assert.deepEqual(await migrateToLatest(fresh.store), ['0101_search_cluster_commit_within']);
      const row = await db
        .selectFrom('search_cluster')
        .selectAll()
        .where('id', '=', 'old')
        .executeTakeFirst();
      assert.equal(Number(row?.buffer_commit_within), 10000);
    });
  });
}
