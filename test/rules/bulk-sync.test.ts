import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { ensureAdminPassword } from '../../src/security/admin-credentials.js';
import type { Store } from '../../src/storage/database.js';
import { adminAuth, build, engines, freshStore, SHORT_POLLS, skipReason } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';
import { createRule, type StudioAccess, studioWithToken } from './api.js';

// Short retries, so that a failing receiver is retried within the test.
const tuning = { syncRetryDelaysMs: [50, 50] };

const block = { type: 'blockList', name: 'Block', fieldName: 'id', fieldValues: ['P1'] };

/** A webhook receiver answering with the given statuses in turn (the last one repeats). */
async function receiver(t: { after(fn: () => unknown): void }, statuses: number[]) {
  const received: Array<Record<string, unknown>> = [];
  const server = createServer((request: IncomingMessage, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push(JSON.parse(body) as Record<string, unknown>);
      response.statusCode = statuses[Math.min(received.length - 1, statuses.length - 1)]!;
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}

function syncStatus(app: FastifyInstance, access: StudioAccess, id: string) {
  return async () => {
    const response = await app.inject({
      url: `/em-rules/${id}?fields=PLATFORM_SYNC_STATUS`,
      headers: access.headers,
    });
    return response.json<{
      stagingSyncStatus: { status: string; version: number };
      liveSyncStatus: { status: string };
    }>();
  };
}

for (const engine of engines) {
  describe(`bulk operations and sync on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('delivers changes to the sync targets, retrying a failing one until it takes them', async (t) => {
      const { app } = await build(t, engine, { tuning });
      const access = await studioWithToken(app, 'shop');
      const hook = await receiver(t, [500, 200]);
      const set = await app.inject({
        method: 'PUT',
        url: '/api/studios/shop',
        headers: { authorization: adminAuth },
        payload: { syncTargets: [hook.url] },
      });
      assert.equal(set.statusCode, 200);
      const rule = await createRule(app, access, block);
      const synced = await eventually(async () => {
        const status = await syncStatus(app, access, rule.id)();
        return status.stagingSyncStatus.status === 'SYNCED' && status;
      });
      assert.equal(synced.stagingSyncStatus.status, 'SYNCED');
      assert.ok(hook.received.length >= 2, 'the first delivery failed and was retried');
      assert.equal(hook.received.at(-1)?.stage, 'staging');
      await app.inject({ method: 'POST', url: `/em-rules/${rule.id}/publish`, headers: access.headers });
      const live = await eventually(async () => {
        const status = await syncStatus(app, access, rule.id)();
        return status.liveSyncStatus.status === 'SYNCED' && status;
      });
      assert.equal(live.liveSyncStatus.status, 'SYNCED');
    });

    test('delivers after a restart what a stopped node left undelivered', async (t) => {
      const fresh = await freshStore(engine);
      await ensureAdminPassword(fresh.store.db, fresh.config.adminPassword);
      t.after(() => fresh.close());
      const node = (store: Store, retryMs: number) =>
        buildApp({
          config: fresh.config,
          store,
          secretKey: Buffer.alloc(32, 7),
          logger: false,
          tuning: { ...SHORT_POLLS, syncRetryDelaysMs: [retryMs] },
        });
      // The first node stops after the first attempt; its retry, due a second later, is in
      // the outbox, and the next node sends it. Its sender stops as soon as the first attempt
      // arrives, so that only a stall of a whole second could let it send the retry itself.
      const first = await node(fresh.store, 1_000);
      const access = await studioWithToken(first, 'shop');
      const hook = await receiver(t, [503, 200]);
      await first.inject({
        method: 'PUT',
        url: '/api/studios/shop',
        headers: { authorization: adminAuth },
        payload: { syncTargets: [hook.url] },
      });
      const rule = await createRule(first, access, block);
      await eventually(() => hook.received.length >= 1);
      await first.parts.rules.webhooks.close();
      await first.close();

      assert.equal(hook.received.length, 1);
      const second = await node(fresh.openAnother(), 50);
      t.after(() => second.close());
      const synced = await eventually(async () => {
        const status = await syncStatus(second, access, rule.id)();
        return status.stagingSyncStatus.status === 'SYNCED' && status;
      });
      assert.equal(synced.stagingSyncStatus.status, 'SYNCED');
      assert.equal(hook.received.length, 2);
    });

    test('ends as FAILED an operation whose node died, and unflags its rules', async (t) => {
      let clock = new Date('2026-11-21T10:00:00.000Z');
      const { app, store } = await build(t, engine, { tuning, now: () => clock });
      const access = await studioWithToken(app, 'shop');
      const rule = await createRule(app, access, block);
      // What a node killed mid-operation leaves behind: RUNNING, its rules still flagged.
      await store.db
        .insertInto('rule_bulk_operation')
        .values({
          id: 'op-1',
          studio_id: 'shop',
          status: 'RUNNING',
          request: '{}',
          counts: JSON.stringify({ created: 0, updated: 0, deleted: 0, published: 0, failed: 0 }),
          errors: '[]',
          created_at: clock.toISOString(),
          finished_at: null,
          heartbeat_at: clock.toISOString(),
        })
        .execute();
      await store.db
        .updateTable('rule')
        .set({ bulk_operation_id: 'op-1' })
        .where('id', '=', rule.id)
        .execute();
      const pending = (
        await app.inject({
          url: `/em-rules/${rule.id}?fields=IS_PENDING_BULK_OPERATION`,
          headers: access.headers,
        })
      ).json();
      assert.equal(pending.isPendingBulkOperation, true);
      const running = await app.inject({ url: '/em-rules/bulk/op-1', headers: access.headers });
      assert.equal(running.json().status, 'RUNNING');

      clock = new Date(clock.getTime() + 6 * 60_000);
      const ended = (await app.inject({ url: '/em-rules/bulk/op-1', headers: access.headers })).json();
      assert.equal(ended.status, 'FAILED');
      assert.match(ended.errors.at(-1).message, /stopped before the operation ended/);
      const after = (
        await app.inject({
          url: `/em-rules/${rule.id}?fields=IS_PENDING_BULK_OPERATION`,
          headers: access.headers,
        })
      ).json();
      assert.equal(after.isPendingBulkOperation, false);
    });

    test('marks a version FAILED when the target keeps failing', async (t) => {
      const { app } = await build(t, engine, { tuning });
      const access = await studioWithToken(app, 'shop');
      const hook = await receiver(t, [503]);
      await app.inject({
        method: 'PUT',
        url: '/api/studios/shop',
        headers: { authorization: adminAuth },
        payload: { syncTargets: [hook.url] },
      });
      const rule = await createRule(app, access, block);
      const failed = await eventually(async () => {
        const status = await syncStatus(app, access, rule.id)();
        return status.stagingSyncStatus.status === 'FAILED' && status;
      });
      assert.equal(failed.stagingSyncStatus.status, 'FAILED');
      assert.equal(hook.received.length, 3, JSON.stringify(hook.received.map((r) => [r.stage, r.version])));
    });

    test('runs a bulk operation in the background, flagging its rules while it runs', async (t) => {
      const { app } = await build(t, engine, { tuning });
      const access = await studioWithToken(app, 'shop');
      const existing = await createRule(app, access, { ...block, externalId: 'old' });
      const doomed = await createRule(app, access, block);
      const create = Array.from({ length: 1100 }, (_, i) => ({ ...block, name: `Bulk ${i}` }));
      const started = await app.inject({
        method: 'POST',
        url: '/em-rules/bulk',
        headers: access.headers,
        payload: {
          create: [...create, { type: 'blockList', name: 'invalid' }],
          update: [{ ...block, id: 'old', name: 'Updated in bulk' }],
          delete: [doomed.id, 'missing'],
          publish: ['old'],
        },
      });
      assert.equal(started.statusCode, 202, started.body);
      const { operationId } = started.json<{ operationId: string }>();
      const pending = await app.inject({
        url: '/em-rules/old?fields=IS_PENDING_BULK_OPERATION',
        headers: access.headers,
      });
      assert.equal(pending.json().isPendingBulkOperation, true);

      const status = await eventually(
        async () => {
          const status = (
            await app.inject({ url: `/em-rules/bulk/${operationId}`, headers: access.headers })
          ).json();
          return (status.status === 'DONE' || status.status === 'FAILED') && status;
        },
        { within: 60_000 },
      );
      assert.equal(status.status, 'DONE');
      assert.deepEqual(status.counts, { created: 1100, updated: 1, deleted: 1, published: 1, failed: 2 });
      assert.deepEqual(
        status.errors.map((e: { operation: string }) => e.operation),
        ['create', 'delete'],
      );
      const after = await app.inject({
        url: '/em-rules/old?fields=IS_PENDING_BULK_OPERATION',
        headers: access.headers,
      });
      assert.equal(after.json().isPendingBulkOperation, false);
      assert.equal(after.json().publishState, 'PUBLISHED');
      assert.equal(after.json().name, 'Updated in bulk');
      const listed = await app.inject({ url: '/em-rules?size=1', headers: access.headers });
      assert.equal(listed.json().page.totalElements, 1101);
      const other = await studioWithToken(app, 'other');
      const hidden = await app.inject({ url: `/em-rules/bulk/${operationId}`, headers: other.headers });
      assert.equal(hidden.statusCode, 404);
      assert.equal(existing.publishState, 'DRAFT');
    });
  });
}
