import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { Registry } from 'prom-client';
import { JobMetrics } from '../../src/jobs/job-metrics.js';
import { openStore } from '../../src/storage/database.js';
import { adminAuth, build, buildNodes, engines, skipReason } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';
import { startFakeSolr } from '../helpers/fake-solr.js';
import { captureLog } from '../helpers/log-capture.js';
import { testDatabaseUrl } from '../helpers/postgres.js';
import { freePort } from '../helpers/zookeeper.js';
import { createRule, studioWithToken } from '../rules/api.js';
import { parseExposition, sampleValue } from './exposition.js';

async function scrape(app: FastifyInstance): Promise<string> {
  const response = await app.inject({ url: '/metrics', headers: { authorization: adminAuth } });
  assert.equal(response.statusCode, 200, response.body);
  return response.body;
}

/** The value of one series in the app's /metrics now (0 when the series is absent). */
async function metric(
  app: FastifyInstance,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  return sampleValue(parseExposition(await scrape(app)), name, labels);
}

const blockList = { type: 'blockList', name: 'Block P1', fieldName: 'id', fieldValues: ['P1'] };

for (const engine of engines) {
  describe(`metrics of every area on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('counts a publish through the API and each listing under its scenario', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const rule = await createRule(app, access, blockList);
      const publishes = { source: 'api' };
      assert.equal(await metric(app, 'searchdeck_rule_publishes_total', publishes), 0);
      const published = await app.inject({
        method: 'POST',
        url: `/em-rules/${rule.id}/publish`,
        headers: access.headers,
      });
      assert.equal(published.statusCode, 200, published.body);
      assert.equal(await metric(app, 'searchdeck_rule_publishes_total', publishes), 1);

      const scenarios: Array<[string, string]> = [
        ['all', '/em-rules?page=0&size=5&sort=name,asc'],
        ['filtered', '/em-rules?tags=sale&types=blockList'],
        ['search', '/em-rules?searchQuery=block&types=blockList'],
        ['targeted', '/em-rules?targetedDocumentId=P1'],
        ['conflicts', '/em-rules?fields=CONFLICTS&searchQuery=block'],
      ];
      for (const [scenario, url] of scenarios) {
        const name = 'searchdeck_rule_listing_duration_seconds_count';
        const before = await metric(app, name, { scenario });
        const listed = await app.inject({ url, headers: access.headers });
        assert.equal(listed.statusCode, 200, listed.body);
        assert.equal(await metric(app, name, { scenario }), before + 1, scenario);
      }
      // A refused listing is not a listing of any scenario.
      const text = await scrape(app);
      await app.inject({ url: '/em-rules?size=0', headers: access.headers });
      assert.deepEqual(
        parseExposition(await scrape(app)).filter((s) => s.name.startsWith('searchdeck_rule_listing')),
        parseExposition(text).filter((s) => s.name.startsWith('searchdeck_rule_listing')),
      );
    });

    test('shows a bulk operation running, then its items processed and its end', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const draft = await createRule(app, access, blockList);
      const create = Array.from({ length: 1500 }, (_, i) => ({ ...blockList, name: `Rule ${i}` }));
      const started = await app.inject({
        method: 'POST',
        url: '/em-rules/bulk',
        headers: access.headers,
        payload: { create, publish: [draft.id, 'no-such-rule'] },
      });
      assert.equal(started.statusCode, 202, started.body);
      // The operation counts as running from the moment it is accepted until it ends.
      assert.equal(await metric(app, 'searchdeck_rule_bulk_operations_running'), 1);
      const { operationId } = started.json<{ operationId: string }>();
      // Waited for until it ends either way, so that a failed operation fails the test at once.
      const ended = await eventually(
        async () => {
          const answer = await app.inject({ url: `/em-rules/bulk/${operationId}`, headers: access.headers });
          const { status } = answer.json<{ status: string }>();
          return status === 'DONE' || status === 'FAILED' ? answer : false;
        },
        { within: 60_000, message: 'the bulk operation did not end' },
      );
      assert.notEqual(ended.json<{ status: string }>().status, 'FAILED', ended.body);
      const series = parseExposition(await scrape(app));
      const items = 'searchdeck_rule_bulk_items_processed_total';
      assert.equal(sampleValue(series, items, { operation: 'create', outcome: 'ok' }), 1500);
      assert.equal(sampleValue(series, items, { operation: 'publish', outcome: 'ok' }), 1);
      assert.equal(sampleValue(series, items, { operation: 'publish', outcome: 'failed' }), 1);
      assert.equal(sampleValue(series, 'searchdeck_rule_publishes_total', { source: 'bulk' }), 1);
      assert.equal(sampleValue(series, 'searchdeck_rule_bulk_operations_total', { status: 'DONE' }), 1);
      assert.equal(sampleValue(series, 'searchdeck_rule_bulk_operations_running'), 0);
    });

    test('counts connectivity checks by outcome and their steps by step and outcome', async (t) => {
      const { app } = await build(t, engine);
      const solr = await startFakeSolr();
      const notSolr = await startFakeSolr({ behaviour: 'not-solr' });
      t.after(() => Promise.all([solr.close(), notSolr.close()]));
      const admin = { authorization: adminAuth };
      const standalone = (id: string, connectString: string) => ({
        id,
        connectString,
        cloud: false,
        zkConnectTimeout: 3000,
      });
      const ok = await app.inject({
        method: 'POST',
        url: '/api/searchCluster?validate=true',
        headers: admin,
        payload: standalone('good', solr.baseUrl),
      });
      assert.equal(ok.statusCode, 200, ok.body);
      const stored = await app.inject({
        method: 'POST',
        url: '/api/searchCluster',
        headers: admin,
        payload: standalone('bad', notSolr.baseUrl),
      });
      assert.equal(stored.statusCode, 200, stored.body);
      const failed = await app.inject({ url: '/api/apps/shop/searchCluster/bad/status', headers: admin });
      assert.equal(failed.statusCode, 404, 'outside the app: no check runs');
      const check = await app.inject({ url: '/api/searchCluster/bad/status', headers: admin });
      assert.equal(check.statusCode, 400, check.body);
      const kerberos = await app.inject({
        method: 'POST',
        url: '/api/searchCluster?validate=true',
        headers: admin,
        payload: {
          ...standalone('kerberos', solr.baseUrl),
          authConfig: { authType: 'KERBEROS', principal: 'searchdeck@EXAMPLE.COM', keyTab: 'a2V5dGFi' },
        },
      });
      assert.equal(kerberos.statusCode, 400, kerberos.body);

      const series = parseExposition(await scrape(app));
      const checks = 'searchdeck_cluster_checks_total';
      assert.equal(sampleValue(series, checks, { outcome: 'ok' }), 1);
      assert.equal(sampleValue(series, checks, { outcome: check.json().code }), 1);
      assert.equal(sampleValue(series, checks, { outcome: 'not-supported' }), 1);
      const steps = 'searchdeck_cluster_check_steps_total';
      assert.equal(sampleValue(series, steps, { step: 'solr-node', outcome: 'ok' }), 1);
      assert.equal(sampleValue(series, steps, { step: 'solr-node', outcome: 'failed' }), 1);
      const timed = 'searchdeck_cluster_check_step_duration_seconds_count';
      assert.equal(sampleValue(series, timed, { step: 'solr-node' }), 2);
    });

    test('counts job runs by outcome, times them and shows which node holds the lease', async (t) => {
      const [first, second] = await buildNodes(t, engine, 2);
      const job = { job: 'typeahead-top-searched' };
      assert.equal(await first!.app.parts.typeahead.topSearched.runScheduledJob(), true);
      assert.equal(await second!.app.parts.typeahead.topSearched.runScheduledJob(), false);

      const one = parseExposition(await scrape(first!.app));
      assert.equal(sampleValue(one, 'searchdeck_job_runs_total', { ...job, outcome: 'ok' }), 1);
      assert.equal(sampleValue(one, 'searchdeck_job_duration_seconds_count', job), 1);
      assert.equal(sampleValue(one, 'searchdeck_job_lease_held', job), 1);
      const two = parseExposition(await scrape(second!.app));
      assert.equal(sampleValue(two, 'searchdeck_job_runs_total', { ...job, outcome: 'skipped' }), 1);
      assert.equal(sampleValue(two, 'searchdeck_job_duration_seconds_count', job), 0);
      assert.equal(sampleValue(two, 'searchdeck_job_lease_held', job), 0);
    });

    test('shows the connections in use and the work waiting for one', async (t) => {
      const { app, store } = await build(t, engine);
      const max = store.pool.max;
      assert.equal(await metric(app, 'searchdeck_db_pool_connections_max'), max);
      const acquired = await metric(app, 'searchdeck_db_pool_acquires_total');
      assert.ok(acquired > 0);

      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let holding = 0;
      const holders = Array.from({ length: max }, () =>
        store.db.transaction().execute(async (trx) => {
          await sql`select 1`.execute(trx);
          holding += 1;
          await held;
        }),
      );
      let waiting: Promise<unknown> = Promise.resolve();
      try {
        await eventually(() => holding >= max, { message: 'not every connection was taken' });
        waiting = sql`select 1`.execute(store.db);
        await eventually(() => store.pool.waiting >= 1, {
          message: 'the query did not wait for a connection',
        });
        // A fixed time on purpose: the query waits this long, so the wait seconds asserted below count it.
        await sleep(20);
        // A scrape needs the database now (the admin check, the outbox's pending count), so the
        // counts the gauges read are looked at directly while every connection is taken. The
        // node's once-a-second polls (typeahead, evaluation, query profiles) may wait too.
        assert.equal(store.pool.inUse, max);
        assert.ok(store.pool.waiting >= 1, `${store.pool.waiting} waiting`);
      } finally {
        // Released whatever the assertions found, so a failure fails the test and does not hang it.
        release();
        await Promise.all([...holders, waiting]);
      }

      const after = parseExposition(await scrape(app));
      assert.equal(sampleValue(after, 'searchdeck_db_pool_waiting_requests'), 0);
      // The scrape itself may hold one connection while the outbox's gauge reads its count.
      assert.ok(sampleValue(after, 'searchdeck_db_pool_connections_in_use') <= 1);
      assert.ok(sampleValue(after, 'searchdeck_db_pool_acquires_total') >= acquired + max + 1);
      assert.ok(sampleValue(after, 'searchdeck_db_pool_wait_seconds_total') > 0.015);
      assert.equal(sampleValue(after, 'searchdeck_db_pool_errors_total', { kind: 'connection-lost' }), 0);
    });

    test('reads the gauges from the pool when scraped', async (t) => {
      const { app, store } = await build(t, engine);
      // What the gauges show is what the pool counts at the moment of the scrape.
      store.pool.inUse += 3;
      store.pool.waiting += 2;
      const series = parseExposition(await scrape(app));
      store.pool.inUse -= 3;
      store.pool.waiting -= 2;
      assert.ok(sampleValue(series, 'searchdeck_db_pool_connections_in_use') >= 3);
      assert.equal(sampleValue(series, 'searchdeck_db_pool_waiting_requests'), 2);
    });
  });
}

describe('database pool errors on postgres', { skip: await skipReason('postgres') }, () => {
  test('logs and counts the loss of an idle pooled connection', async (t) => {
    const application = `searchdeck_metrics_${process.pid}_${Date.now()}`;
    const log = captureLog();
    const { app } = await build(t, 'postgres', {
      env: { SEARCHDECK_DATABASE_URL: `${testDatabaseUrl}?application_name=${application}` },
      logger: log.logger,
    });
    await scrape(app);
    const admin = new pg.Client({ connectionString: testDatabaseUrl });
    await admin.connect();
    const { rows } = await admin.query<{ ended: boolean }>(
      // The pool's idle connections, not the one listening for notifications (no pool's).
      "select pg_terminate_backend(pid) as ended from pg_stat_activity where application_name = $1 and state = 'idle' and query not ilike 'listen%'",
      [application],
    );
    await admin.end();
    const ended = rows.filter((row) => row.ended).length;
    assert.ok(ended > 0);
    const lost = await eventually(
      async () => {
        const counted = await metric(app, 'searchdeck_db_pool_errors_total', { kind: 'connection-lost' });
        return counted >= ended ? counted : false;
      },
      { within: 10_000, every: 20, message: `${ended} lost connections were not counted` },
    );
    assert.equal(lost, ended);
    const logged = log.lines.map((line) => JSON.parse(line)).filter((l) => l.msg === 'database pool error');
    assert.equal(logged.length, ended);
    assert.equal(logged[0].kind, 'connection-lost');
    assert.equal(logged[0].level, 40);
  });

  test('counts a connection that could not be opened', async (t) => {
    const url = new URL(testDatabaseUrl);
    url.port = String(await freePort());
    const store = openStore({ dataDir: '.', databaseUrl: url.toString() });
    t.after(() => store.close());
    await assert.rejects(sql`select 1`.execute(store.db));
    assert.equal(store.pool.errors['connect-failed'], 1);
    assert.equal(store.pool.inUse, 0);
    assert.equal(store.pool.waiting, 0);
  });
});

describe('job metrics', () => {
  test('count a run that throws as failed and time it', async () => {
    const registry = new Registry();
    const jobs = new JobMetrics(registry, () => new Date());
    await assert.rejects(
      jobs.run('nightly', async () => {
        throw new Error('boom');
      }),
    );
    const series = parseExposition(await registry.metrics());
    assert.equal(sampleValue(series, 'searchdeck_job_runs_total', { job: 'nightly', outcome: 'failed' }), 1);
    assert.equal(sampleValue(series, 'searchdeck_job_duration_seconds_count', { job: 'nightly' }), 1);
  });

  test('show a lease as held only until it lapses', async () => {
    let now = new Date('2026-01-01T10:00:00Z');
    const registry = new Registry();
    const jobs = new JobMetrics(registry, () => now);
    jobs.leaseTaken('hourly', new Date('2026-01-01T10:50:00Z'));
    const held = async () =>
      sampleValue(parseExposition(await registry.metrics()), 'searchdeck_job_lease_held', { job: 'hourly' });
    assert.equal(await held(), 1);
    now = new Date('2026-01-01T10:50:00Z');
    assert.equal(await held(), 0);
  });
});
