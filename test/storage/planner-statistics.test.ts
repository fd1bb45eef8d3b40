// Large writes leave the planner's statistics current: a bulk operation, a rewrites bulk
// request or an import that writes more rows than PostgreSQL's analyze threshold allows
// (50 plus a tenth of what the statistics were gathered on) has its tables analyzed,
// and smaller ones are counted until together they pass it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Store } from '../../src/storage/database.js';
import { call } from '../helpers/api.js';
import { adminAuth, build, engines, skipReason } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';
import { REWRITES_ONLY, call as rewriteCall } from '../rewrites/api.js';
import { type StudioAccess, studioWithToken } from '../rules/api.js';

/** The rows the planner's statistics hold for a table, undefined when it was never analyzed. */
async function plannedRows(store: Store, table: string): Promise<number | undefined> {
  if (store.engine === 'postgres') {
    const { rows } = await sql<{ rows: number }>`
      select reltuples::float8 as rows from pg_class where oid = to_regclass(${table})`.execute(store.db);
    const planned = rows[0]?.rows ?? -1;
    return planned < 0 ? undefined : planned;
  }
  const { rows: stat1 } = await sql<{ name: string }>`
    select name from sqlite_master where name = 'sqlite_stat1'`.execute(store.db);
  if (stat1.length === 0) return undefined;
  const { rows } = await sql<{ rows: number | null }>`
    select max(cast(stat as integer)) as rows from sqlite_stat1 where tbl = ${table}`.execute(store.db);
  return rows[0]?.rows ?? undefined;
}

async function bulkCreate(app: FastifyInstance, access: StudioAccess, from: number, count: number) {
  const create = Array.from({ length: count }, (_, i) => ({
    type: 'boostList',
    name: `Rule ${from + i}`,
    fieldName: 'brand',
    fieldValues: [`brand${(from + i) % 7}`],
    tags: [`tag${(from + i) % 5}`],
  }));
  const started = await app.inject({
    method: 'POST',
    url: '/em-rules/bulk',
    headers: access.headers,
    payload: { create },
  });
  assert.equal(started.statusCode, 202, started.body);
  const { operationId } = started.json<{ operationId: string }>();
  const status = await eventually(
    async () => {
      const status = (
        await app.inject({ url: `/em-rules/bulk/${operationId}`, headers: access.headers })
      ).json<{ status: string }>();
      return (status.status === 'DONE' || status.status === 'FAILED') && status;
    },
    { within: 60_000, message: `bulk operation ${operationId} did not end` },
  );
  assert.ok(status.status !== 'FAILED', JSON.stringify(status));
  await app.parts.statistics.settled();
}

for (const engine of engines) {
  describe(`planner statistics on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('a bulk operation analyzes the rules tables once its rows pass the threshold', async (t) => {
      const { app, store } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      assert.equal(await plannedRows(store, 'rule'), undefined, 'a fresh database has no statistics');

      await bulkCreate(app, access, 0, 300);
      assert.equal(await plannedRows(store, 'rule'), 300);
      const facets = await store.db
        .selectFrom('rule_facet')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      assert.ok(facets.n >= 600);
      assert.equal(await plannedRows(store, 'rule_facet'), Number(facets.n));

      // 40 more are under 50 + 30: counted, not analyzed; 60 after them pass it together.
      await bulkCreate(app, access, 300, 40);
      assert.equal(await plannedRows(store, 'rule'), 300);
      await bulkCreate(app, access, 340, 60);
      assert.equal(await plannedRows(store, 'rule'), 400);
    });

    test('a rewrites bulk request analyzes the rewrites tables', async (t) => {
      const { app, store } = await build(t, engine);
      const access = await studioWithToken(app, 'shop', REWRITES_ONLY);
      const create = Array.from({ length: 120 }, (_, i) => ({
        type: 'misspelling',
        misspelling: `word${i}`,
        correction: `fixed${i}`,
      }));
      const made = await rewriteCall(app, access, 'POST', '/query-rewrites/bulk', { create });
      assert.equal(made.statusCode, 200, made.body);
      await app.parts.statistics.settled();
      assert.equal(await plannedRows(store, 'query_rewrite'), 120);
    });

    test('an import analyzes the tables of the rules and links it wrote', async (t) => {
      const source = await build(t, engine);
      const access = await studioWithToken(source.app, 'acme');
      await bulkCreate(source.app, access, 0, 80);
      for (let i = 0; i < 60; i++) {
        const put = await call(source.app, 'PUT', '/api/links', {
          subject: `component:c${i}`,
          object: 'studio:acme',
          linkType: 'dependsOn',
        });
        assert.ok(put.status < 300, JSON.stringify(put.body));
      }
      const exported = await source.app.inject({
        url: '/api/objects/export',
        headers: { authorization: adminAuth },
      });
      assert.equal(exported.statusCode, 200, exported.body);
      const document = exported.json();
      assert.equal(document.objects.links.length, 60, JSON.stringify(document.objects.links.slice(0, 3)));

      const target = await build(t, engine);
      const imported = await call(target.app, 'POST', '/api/objects/import', document);
      assert.equal(imported.status, 200, JSON.stringify(imported.body));
      await target.app.parts.statistics.settled();
      assert.equal(await plannedRows(target.store, 'rule'), 80);
      assert.equal(await plannedRows(target.store, 'link'), 60);
      // A dry run writes nothing that stays, and gathers nothing.
      const again = await build(t, engine);
      const dry = await call(again.app, 'POST', '/api/objects/import?dryRun=true', document);
      assert.equal(dry.status, 200, JSON.stringify(dry.body));
      await again.app.parts.statistics.settled();
      assert.equal(await plannedRows(again.store, 'rule'), undefined);
    });
  });
}
