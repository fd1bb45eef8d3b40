import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { buildApp } from '../../src/app.js';
import { claimDelivery } from '../../src/rules/delivery-repository.js';
import { backoffDelays } from '../../src/rules/webhook-delivery.js';
import { ensureAdminPassword } from '../../src/security/admin-credentials.js';
import { enqueueUndelivered } from '../../src/storage/migrations/0304_webhook_outbox.js';
import {
  adminAuth,
  build,
  buildNodes,
  engines,
  freshStore,
  SHORT_POLLS,
  skipReason,
} from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';
import { createRule, studioWithToken } from './api.js';
import { receiver, verifyWebhook } from './standard-webhooks-receiver.js';

const block = { type: 'blockList', name: 'Block', fieldName: 'id', fieldValues: ['P1'] };

// How long a delivery may take to arrive or to end.
const DELIVERY = { within: 15_000 };

function admin(app: FastifyInstance, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) {
  return app.inject({ method, url, headers: { authorization: adminAuth }, ...(payload ? { payload } : {}) });
}

/** Sets the studio's sync targets; answers the secrets the answer showed. */
async function setTargets(app: FastifyInstance, studioId: string, urls: string[]) {
  const answer = await admin(app, 'PUT', `/api/studios/${studioId}`, { syncTargets: urls });
  assert.equal(answer.statusCode, 200, answer.body);
  return answer.json<{ syncTargetSecrets: Array<{ url: string; secret: string }> }>().syncTargetSecrets;
}

interface DeliveryJson {
  id: string;
  ruleId: string;
  event: string;
  status: string;
  attempts: number;
  nextAttemptAt: string | null;
  lastError: string | null;
}

async function deliveries(app: FastifyInstance, studioId: string, query = ''): Promise<DeliveryJson[]> {
  const answer = await admin(app, 'GET', `/api/studios/${studioId}/deliveries${query}`);
  assert.equal(answer.statusCode, 200, answer.body);
  return answer.json();
}

test('backoff grows exponentially up to its cap', () => {
  assert.deepEqual(
    backoffDelays(1_000, 4, 600_000, 8),
    [1_000, 4_000, 16_000, 64_000, 256_000, 600_000, 600_000, 600_000],
  );
});

for (const engine of engines) {
  describe(`webhook outbox on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('a change committed by a node killed before sending is delivered by the next node', async (t) => {
      const fresh = await freshStore(engine);
      await ensureAdminPassword(fresh.store.db, fresh.config.adminPassword);
      t.after(() => fresh.close());
      const node = (store = fresh.store) =>
        buildApp({
          config: fresh.config,
          store,
          secretKey: Buffer.alloc(32, 7),
          logger: false,
          tuning: SHORT_POLLS,
        });
      const hook = await receiver(t);
      const first = await node();
      await first.ready();
      // The sender stops before the change: the node dies between the commit and the POST.
      await first.parts.rules.webhooks.close();
      const access = await studioWithToken(first, 'shop');
      const [secret] = await setTargets(first, 'shop', [hook.url]);
      const rule = await createRule(first, access, block);
      await first.close();
      assert.equal(hook.received.length, 0);

      const second = await node(fresh.openAnother());
      t.after(() => second.close());
      await second.ready();
      const [arrived] = await eventually(() => hook.received.length >= 1 && hook.received.slice(), DELIVERY);
      assert.ok(arrived, 'the delivery arrived');
      assert.equal(arrived.json.ruleId, rule.id);
      assert.equal(arrived.json.stage, 'staging');
      assert.equal(verifyWebhook(secret!.secret, arrived.headers, arrived.body), undefined);
      const listed = await eventually(async () => {
        const listed = await deliveries(second, 'shop');
        return listed[0]?.status === 'DELIVERED' && listed;
      }, DELIVERY);
      assert.deepEqual(
        listed.map((d) => [d.id, d.status, d.attempts]),
        [[arrived.headers['webhook-id'], 'DELIVERED', 1]],
      );
      // Instead of waiting for a second send that must not come: the sender looks at the outbox
      // once more now, then stops, waiting for whatever it still had under way.
      await second.parts.rules.webhooks.sendDue();
      await second.parts.rules.webhooks.close();
      assert.equal(hook.received.length, 1);
    });

    test('a removal still pending when the rule is restored is skipped, its content delivered', async (t) => {
      const fresh = await freshStore(engine);
      await ensureAdminPassword(fresh.store.db, fresh.config.adminPassword);
      t.after(() => fresh.close());
      const node = (store = fresh.store) =>
        buildApp({
          config: fresh.config,
          store,
          secretKey: Buffer.alloc(32, 7),
          logger: false,
          tuning: SHORT_POLLS,
        });
      const hook = await receiver(t);
      const first = await node();
      await first.ready();
      // Nothing is sent before the restore: the removal is still pending when the rule comes back.
      await first.parts.rules.webhooks.close();
      const access = await studioWithToken(first, 'shop');
      await setTargets(first, 'shop', [hook.url]);
      const rule = await createRule(first, access, block);
      const url = `/em-rules/${rule.id}`;
      assert.equal((await first.inject({ method: 'DELETE', url, headers: access.headers })).statusCode, 204);
      const history = await first.inject({ url: `${url}/history`, headers: access.headers });
      const deleted = history.json().content[0];
      assert.equal(deleted.action, 'delete');
      const restored = await first.inject({
        method: 'POST',
        url: `${url}/history/${deleted.id}/restore`,
        headers: access.headers,
      });
      assert.equal(restored.statusCode, 200, restored.body);
      await first.close();

      const second = await node(fresh.openAnother());
      t.after(() => second.close());
      await second.ready();
      const listed = await eventually(async () => {
        const listed = await deliveries(second, 'shop');
        return listed.every((d) => d.status !== 'PENDING') && listed;
      }, DELIVERY);
      await second.parts.rules.webhooks.close();
      // The create's and the restore's deliveries may both send the one staging version.
      assert.ok(hook.received.length >= 1, 'the restored content arrived');
      assert.deepEqual(
        [...new Set(hook.received.map((r) => JSON.stringify([r.json.event, r.json.ruleId, r.json.stage])))],
        [JSON.stringify(['rule.changed', rule.id, 'staging'])],
        'no removal was sent',
      );
      const removals = listed.filter((d) => d.event === 'rule.removed');
      assert.deepEqual(
        removals.map((d) => d.status),
        ['SKIPPED', 'SKIPPED'],
      );
    });

    test('signs every delivery with the target secret shown once; a tampered body fails to verify', async (t) => {
      const { app, store } = await build(t, engine);
      const hook = await receiver(t);
      const other = await receiver(t);
      const access = await studioWithToken(app, 'shop');
      const secrets = await setTargets(app, 'shop', [hook.url, other.url]);
      assert.deepEqual(
        secrets.map((s) => s.url),
        [hook.url, other.url],
      );
      assert.ok(secrets.every((s) => /^whsec_[A-Za-z0-9+/]+={0,2}$/.test(s.secret)));
      // Shown once: a target kept gets no new secret, and reading the studio shows none.
      assert.deepEqual(await setTargets(app, 'shop', [hook.url, other.url]), []);
      assert.equal((await admin(app, 'GET', '/api/studios/shop')).json().syncTargetSecrets, undefined);
      // Stored sealed, never in the clear.
      const stored = await store.db.selectFrom('studio_sync_target_secret').select('secret').execute();
      assert.ok(stored.every((row) => !secrets.some((s) => row.secret.includes(s.secret.slice(6)))));

      const rule = await createRule(app, access, block);
      const [message] = await eventually(() => hook.received.length >= 1 && hook.received, DELIVERY);
      const [copy] = await eventually(() => other.received.length >= 1 && other.received, DELIVERY);
      assert.equal(verifyWebhook(secrets[0]!.secret, message!.headers, message!.body), undefined);
      assert.equal(verifyWebhook(secrets[1]!.secret, copy!.headers, copy!.body), undefined);
      assert.equal(message!.headers['webhook-id'], copy!.headers['webhook-id']);
      assert.equal(
        verifyWebhook(secrets[1]!.secret, message!.headers, message!.body),
        'no matching signature',
      );
      const tampered = message!.body.replace('"staging"', '"live"');
      assert.notEqual(tampered, message!.body);
      assert.equal(verifyWebhook(secrets[0]!.secret, message!.headers, tampered), 'no matching signature');
      assert.deepEqual(message!.json, {
        event: 'rule.changed',
        studioId: 'shop',
        ruleId: rule.id,
        stage: 'staging',
        version: 1,
        content: message!.json.content,
      });

      // Rotation: new secrets for every target, and the next delivery is signed with them.
      const rotated = await admin(app, 'POST', '/api/studios/shop/sync-target-secrets');
      assert.equal(rotated.statusCode, 200, rotated.body);
      const fresh = rotated.json<Array<{ url: string; secret: string }>>();
      assert.deepEqual(
        fresh.map((s) => s.url),
        [hook.url, other.url],
      );
      await app.inject({ method: 'POST', url: `/em-rules/${rule.id}/publish`, headers: access.headers });
      const [, live] = await eventually(() => hook.received.length >= 2 && hook.received, DELIVERY);
      assert.equal(live!.json.stage, 'live');
      assert.equal(verifyWebhook(fresh[0]!.secret, live!.headers, live!.body), undefined);
      assert.equal(verifyWebhook(secrets[0]!.secret, live!.headers, live!.body), 'no matching signature');
    });

    test('a target without a secret (set before secrets existed) gets unsigned messages', async (t) => {
      const { app, store } = await build(t, engine);
      const hook = await receiver(t);
      const access = await studioWithToken(app, 'shop');
      await setTargets(app, 'shop', [hook.url]);
      await store.db.deleteFrom('studio_sync_target_secret').execute();
      await createRule(app, access, block);
      const [message] = await eventually(() => hook.received.length >= 1 && hook.received, DELIVERY);
      assert.equal(typeof message!.headers['webhook-id'], 'string');
      assert.equal(message!.headers['webhook-signature'], undefined);
    });

    test('retries with growing delays and ends FAILED after the last attempt', async (t) => {
      const { app } = await build(t, engine, { tuning: { syncRetryDelaysMs: [100, 300] } });
      const hook = await receiver(t, [503]);
      const access = await studioWithToken(app, 'shop');
      await setTargets(app, 'shop', [hook.url]);
      const rule = await createRule(app, access, block);
      const pending = await eventually(async () => {
        const listed = await deliveries(app, 'shop');
        return listed[0]?.attempts === 1 && listed;
      }, DELIVERY);
      assert.equal(pending[0]!.status, 'PENDING');
      assert.ok(pending[0]!.nextAttemptAt !== null);
      assert.match(pending[0]!.lastError ?? '', /answered 503/);
      const [failed] = await eventually(async () => {
        const listed = await deliveries(app, 'shop');
        return listed[0]?.status === 'FAILED' && listed;
      }, DELIVERY);
      assert.equal(failed!.status, 'FAILED');
      assert.equal(failed!.attempts, 3);
      assert.equal(failed!.nextAttemptAt, null);
      // Instead of waiting for an attempt that must not come: the sender looks at the outbox
      // once more now, then stops, waiting for whatever it still had under way.
      await app.parts.rules.webhooks.sendDue();
      await app.parts.rules.webhooks.close();
      assert.equal(hook.received.length, 3, 'no attempt after the last one');
      const [first, second, third] = hook.received.map((r) => r.at);
      assert.ok(second! - first! >= 90, `first retry after ${second! - first!} ms`);
      assert.ok(third! - second! >= 290, `second retry after ${third! - second!} ms`);
      assert.equal(new Set(hook.received.map((r) => r.headers['webhook-id'])).size, 1);
      const status = await app.inject({
        url: `/em-rules/${rule.id}?fields=PLATFORM_SYNC_STATUS`,
        headers: access.headers,
      });
      assert.equal(status.json().stagingSyncStatus.status, 'FAILED');

      const metrics = (await admin(app, 'GET', '/metrics')).body;
      assert.match(metrics, /^searchdeck_webhook_delivery_failures_total 3$/m);
      assert.match(metrics, /^searchdeck_webhook_deliveries_pending 0$/m);
      assert.match(metrics, /^searchdeck_webhook_delivery_duration_seconds_count 3$/m);
    });

    test('a redirect is a failed delivery: the signed body is not sent on to where it points', async (t) => {
      const { app } = await build(t, engine, { tuning: { syncRetryDelaysMs: [60_000] } });
      const elsewhere = await receiver(t, [200]);
      const redirecting = await receiver(t, [307]);
      redirecting.location = elsewhere.url;
      const access = await studioWithToken(app, 'shop');
      await setTargets(app, 'shop', [redirecting.url]);
      await createRule(app, access, block);
      const [attempted] = await eventually(async () => {
        const listed = await deliveries(app, 'shop');
        return listed[0]?.attempts === 1 && listed;
      }, DELIVERY);
      assert.equal(attempted!.status, 'PENDING');
      assert.match(attempted!.lastError ?? '', /answered 307/);
      await app.parts.rules.webhooks.close();
      assert.equal(redirecting.received.length, 1);
      assert.equal(elsewhere.received.length, 0, 'the redirect was followed');
    });

    test('two nodes on one database send each delivery once', async (t) => {
      const nodes = await buildNodes(t, engine, 2);
      const [a, b] = nodes.map((n) => n.app) as [FastifyInstance, FastifyInstance];
      const hook = await receiver(t);
      const access = await studioWithToken(a, 'shop');
      await setTargets(a, 'shop', [hook.url]);
      await b.ready();
      const rules = await Promise.all(
        Array.from({ length: 30 }, (_, i) => createRule(i % 2 ? a : b, access, { ...block, name: `R${i}` })),
      );
      await eventually(() => hook.received.length >= rules.length, DELIVERY);
      // Every delivery ended, instead of a fixed 1.5 s; then, instead of waiting for each node's
      // next look at the outbox (every second), both look once more now and stop, waiting for
      // whatever they still had under way: a second send of a delivery has arrived by then.
      await eventually(async () => {
        const listed = await deliveries(b, 'shop', '?limit=1000');
        return listed.length === rules.length && listed.every((d) => d.status !== 'PENDING');
      }, DELIVERY);
      await Promise.all([a, b].map((node) => node.parts.rules.webhooks.sendDue()));
      await Promise.all([a, b].map((node) => node.parts.rules.webhooks.close()));
      const ids = hook.received.map((r) => r.headers['webhook-id']);
      assert.equal(ids.length, rules.length);
      assert.equal(new Set(ids).size, rules.length);
      const listed = await deliveries(b, 'shop', '?limit=1000');
      assert.ok(listed.every((d) => d.status === 'DELIVERED' && d.attempts === 1));
    });

    test('of two nodes claiming one due delivery exactly one gets it', async (t) => {
      const nodes = await buildNodes(t, engine, 2);
      const [a, b] = nodes;
      const hook = await receiver(t);
      await a!.app.ready();
      await b!.app.ready();
      // Senders stopped, so that only the claims below touch the outbox.
      await a!.app.parts.rules.webhooks.close();
      await b!.app.parts.rules.webhooks.close();
      const access = await studioWithToken(a!.app, 'shop');
      await setTargets(a!.app, 'shop', [hook.url]);
      for (let i = 0; i < 10; i++) await createRule(a!.app, access, { ...block, name: `R${i}` });
      const due = await a!.store.db
        .selectFrom('webhook_delivery')
        .select(['id', 'next_attempt_at'])
        .execute();
      assert.equal(due.length, 10);
      const until = new Date(Date.now() + 60_000).toISOString();
      for (const row of due) {
        const claims = await Promise.all([
          claimDelivery(a!.store.db, row.id, row.next_attempt_at, 'node-a', until),
          claimDelivery(b!.store.db, row.id, row.next_attempt_at, 'node-b', until),
        ]);
        assert.equal(claims.filter(Boolean).length, 1);
      }
    });

    test("lists a studio's deliveries in pages; an unknown studio is 404, bad paging 400", async (t) => {
      const { app } = await build(t, engine);
      const hook = await receiver(t);
      const access = await studioWithToken(app, 'shop');
      await setTargets(app, 'shop', [hook.url]);
      for (let i = 0; i < 3; i++) await createRule(app, access, { ...block, name: `R${i}` });
      await eventually(
        async () => (await deliveries(app, 'shop', '?status=DELIVERED')).length === 3,
        DELIVERY,
      );
      const all = await deliveries(app, 'shop');
      const pages = [
        ...(await deliveries(app, 'shop', '?limit=2')),
        ...(await deliveries(app, 'shop', '?limit=2&offset=2')),
      ];
      assert.deepEqual(
        pages.map((d) => d.id),
        all.map((d) => d.id),
      );
      assert.equal((await deliveries(app, 'shop', '?status=FAILED')).length, 0);
      assert.equal((await deliveries(app, 'shop', '?limit=1')).length, 1);
      const missing = await admin(app, 'GET', '/api/studios/nope/deliveries');
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.json().code, 'not-found');
      for (const query of ['limit=0', 'limit=abc', 'offset=-1', 'status=LOST']) {
        const bad = await admin(app, 'GET', `/api/studios/shop/deliveries?${query}`);
        assert.equal(bad.statusCode, 400, `${query}: ${bad.body}`);
        assert.equal(typeof bad.json().code, 'string');
      }
      const anonymous = await app.inject({ url: '/api/studios/shop/deliveries' });
      assert.equal(anonymous.statusCode, 401);
      assert.equal((await admin(app, 'POST', '/api/studios/nope/sync-target-secrets')).statusCode, 404);
    });

    test('the migration puts into the outbox what the in-memory retries had left undelivered', async (t) => {
      const { app, store } = await build(t, engine);
      await app.ready();
      await app.parts.rules.webhooks.close();
      const access = await studioWithToken(app, 'shop');
      await setTargets(app, 'shop', [(await receiver(t)).url]);
      const undelivered = await createRule(app, access, block);
      const delivered = await createRule(app, access, { ...block, name: 'Delivered' });
      await store.db
        .updateTable('rule')
        .set({ staging_synced_version: 1 })
        .where('id', '=', delivered.id)
        .execute();
      const quiet = await studioWithToken(app, 'quiet');
      await createRule(app, quiet, block);
      // As the version before the outbox left it: no rows, versions not synced.
      await store.db.deleteFrom('webhook_delivery').execute();
      // A migration sees the database untyped.
      await enqueueUndelivered(store.db as unknown as Kysely<unknown>);
      const rows = await store.db.selectFrom('webhook_delivery').selectAll().execute();
      assert.deepEqual(
        rows.map((r) => [r.studio_id, r.rule_id, r.stage, r.status, r.event]),
        [['shop', undelivered.id, 'staging', 'PENDING', 'rule.changed']],
      );
    });

    test('a secret sealed under another secret key fails the delivery instead of sending unsigned', async (t) => {
      const fresh = await freshStore(engine);
      await ensureAdminPassword(fresh.store.db, fresh.config.adminPassword);
      t.after(() => fresh.close());
      const hook = await receiver(t);
      const node = (key: number) =>
        buildApp({
          config: fresh.config,
          store: fresh.store,
          secretKey: Buffer.alloc(32, key),
          logger: false,
          tuning: { syncRetryDelaysMs: [50] },
        });
      const first = await node(7);
      await first.ready();
      await first.parts.rules.webhooks.close();
      const access = await studioWithToken(first, 'shop');
      await setTargets(first, 'shop', [hook.url]);
      await createRule(first, access, block);
      await first.close();
      const rekeyed = await node(8);
      t.after(() => rekeyed.close());
      const [failed] = await eventually(async () => {
        const listed = await deliveries(rekeyed, 'shop');
        return listed[0]?.status === 'FAILED' && listed;
      }, DELIVERY);
      assert.equal(failed!.attempts, 2);
      assert.match(failed!.lastError ?? '', /rotate the secrets/);
      assert.equal(hook.received.length, 0);
    });

    test('clears ended deliveries after 30 days and keeps pending ones', async (t) => {
      let clock = new Date('2026-11-01T00:00:00.000Z');
      const { app, store } = await build(t, engine, { now: () => clock });
      await app.ready();
      await app.parts.rules.webhooks.close();
      const access = await studioWithToken(app, 'shop');
      await setTargets(app, 'shop', [(await receiver(t)).url]);
      for (let i = 0; i < 3; i++) await createRule(app, access, { ...block, name: `R${i}` });
      const [ended, recent] = await store.db
        .selectFrom('webhook_delivery')
        .select('id')
        .orderBy('id')
        .execute();
      const finish = (id: string, at: string) =>
        store.db
          .updateTable('webhook_delivery')
          .set({ status: 'DELIVERED', finished_at: at })
          .where('id', '=', id)
          .execute();
      await finish(ended!.id, '2026-11-01T00:00:00.000Z');
      await finish(recent!.id, '2026-11-20T00:00:00.000Z');
      clock = new Date('2026-12-05T00:00:00.000Z');
      assert.equal(await app.parts.rules.webhooks.purgeFinished(), 1);
      const left = await deliveries(app, 'shop');
      assert.deepEqual(left.map((d) => d.status).sort(), ['DELIVERED', 'PENDING']);
    });
  });
}
