import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { describe, type TestContext, test } from 'node:test';
import { EVALUATE_PATH } from '../../src/evaluation/evaluate-endpoint.js';
import type { RewriteSource } from '../../src/evaluation/rewrite-source.js';
import type { LiveRewrite } from '../../src/rewrites/rewrite.js';
import { insertRules } from '../../src/rules/repository.js';
import { NEW_RULE_META } from '../../src/rules/rule-rows.js';
import type { Engine } from '../../src/storage/database.js';
import { deleteClient } from '../../src/studios/service.js';
import { adminAuth, build, buildNodes, engines, skipReason, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';
import { wireGet } from '../helpers/raw-request.js';
import { createRule, studioWithToken, tokenFor } from '../rules/api.js';
import { content } from '../rules/fixtures.js';

for (const engine of engines) {
  describe(`Evaluation follows live changes on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('a rule published on node A fires on node B within 2 seconds, and stops after unpublish', async (t) => {
      const [a, b] = await buildNodes(t, engine, 2);
      await b!.app.ready();
      const access = await studioWithToken(a!.app, 'shop');
      const onB = { authorization: `Bearer ${await tokenFor(b!.app, access.clientId, access.clientSecret)}` };
      const rule = await createRule(a!.app, access, {
        type: 'redirect',
        name: 'Go',
        url: 'https://x.example/',
        conditions: { queries: ['laptop'] },
      });
      const redirectOnB = async () =>
        (await b!.app.inject({ url: '/em-rules/evaluate?q=laptop', headers: onB })).json().effect.redirect;
      const within = (expected: string | null) =>
        eventually(async () => assert.equal(await redirectOnB(), expected), {
          within: 2000,
          message: 'node B still answers the old live set',
        });
      assert.equal(await redirectOnB(), null);
      const publish = await a!.app.inject({
        method: 'POST',
        url: `/em-rules/${rule.id}/publish`,
        headers: access.headers,
      });
      assert.equal(publish.statusCode, 200);
      await within('https://x.example/');
      await a!.app.inject({ method: 'POST', url: `/em-rules/${rule.id}/unpublish`, headers: access.headers });
      await within(null);
    });

    test("a token stops evaluating on node B within 2 seconds of its client's revocation on node A", async (t) => {
      const { a, b, access, statusOn, within } = await listeningNodes(t, engine);
      const statusOnA = (headers: Record<string, string>) => statusOn(a, headers);
      const admin = { authorization: adminAuth };
      await within(b, access.headers, 200, "the new client is still not in B's copy");
      const revoked = await a.app.inject({
        method: 'DELETE',
        url: `/api/studios/shop/clients/${access.clientId}`,
        headers: admin,
      });
      assert.equal(revoked.statusCode, 204, revoked.body);
      await within(b, access.headers, 401, 'the revoked token still evaluates');
      assert.equal(await statusOnA(access.headers), 401, 'node A refuses it at once');

      // A studio deleted and imported again keeps its clients' ids but is another incarnation:
      // tokens issued before the delete are refused on both nodes.
      const client = await a.app.inject({
        method: 'POST',
        url: '/api/studios/shop/clients',
        headers: admin,
        payload: { name: 'second' },
      });
      const { clientId, clientSecret } = client.json();
      const old = { authorization: `Bearer ${await tokenFor(a!.app, clientId, clientSecret)}` };
      await within(b, old, 200, "the second client is still not in B's copy");
      const exported = await a.app.inject({
        url: '/api/objects/export?type=studio&id=shop',
        headers: admin,
      });
      assert.equal(exported.statusCode, 200, exported.body);
      const deleted = await a.app.inject({
        method: 'DELETE',
        url: '/api/studios/shop?force=true',
        headers: admin,
      });
      assert.equal(deleted.statusCode, 204, deleted.body);
      const imported = await a.app.inject({
        method: 'POST',
        url: '/api/objects/import',
        headers: { ...admin, 'content-type': 'application/json' },
        payload: exported.body,
      });
      assert.equal(imported.statusCode, 200, imported.body);
      assert.equal(await statusOnA(old), 401, 'node A refuses a token of the deleted incarnation at once');
      await within(b, old, 401, 'a token of the deleted incarnation still evaluates');
      const secret = imported
        .json()
        .secretsIssued.find((s: { object: string }) => s.object.includes(clientId));
      const fresh = { authorization: `Bearer ${await tokenFor(a!.app, clientId, secret.value)}` };
      await within(b, fresh, 200, "a token of the new incarnation is not answered from B's copy");
    });

    test('a client deleted reaches every copy through the poll even when nothing after its commit ran', async (t) => {
      const { a, b, access, within } = await listeningNodes(t, engine);
      await within(b, access.headers, 200, "the new client is still not in B's copy");
      await within(a, access.headers, 200, "the new client is not in A's copy");
      // The delete's transaction alone, as if its node had failed right after the commit: no
      // notice, no sync. The version it moved in that transaction is what the nodes poll.
      await deleteClient(
        a.store.db,
        'shop',
        access.clientId,
        'test',
        a.app.parts.evaluation.clientsChange('shop'),
      );
      await within(a, access.headers, 401, 'the deleted client still evaluates');
      await within(b, access.headers, 401, 'the deleted client still evaluates');
    });

    test('node B follows a mix of changes made on node A by patching the rules that changed', async (t) => {
      const [a, b] = await buildNodes(t, engine, 2);
      await b!.app.ready();
      const access = await studioWithToken(a!.app, 'shop');
      const onB = { authorization: `Bearer ${await tokenFor(b!.app, access.clientId, access.clientSecret)}` };
      const banner = (name: string, query: string) =>
        createRule(a!.app, access, {
          type: 'banner',
          name,
          bannerUrl: `https://b.example/${name}.png`,
          conditions: { queries: [query] },
        });
      const rules = [
        await banner('one', 'laptop'),
        await banner('two', 'laptop'),
        await banner('three', 'bag'),
      ];
      const call = (method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
        a!.app.inject({ method, url, headers: access.headers, ...(payload ? { payload } : {}) });
      for (const rule of rules) await call('POST', `/em-rules/${rule.id}/publish`);
      const firedOn = async (node: typeof a, headers: Record<string, string>) => {
        const names = [];
        for (const q of ['laptop', 'bag', 'sleeve'])
          names.push(
            (await node!.app.inject({ url: `/em-rules/evaluate?q=${q}`, headers }))
              .json()
              .rules.map((r: { name: string }) => r.name),
          );
        return names;
      };
      const converged = async (expected: string[][]) => {
        assert.deepEqual(await firedOn(a, access.headers), expected, 'node A answers at once');
        await eventually(async () => assert.deepEqual(await firedOn(b, onB), expected), {
          within: 2000,
          message: 'node B still answers the old live set',
        });
      };
      await converged([['one', 'two'], ['three'], []]);
      const fullBuilds = b!.app.parts.evaluation.rebuilds.fullBuilds;
      // A deletion mark, a republished edit with another query, and an unpublish.
      await call('DELETE', `/em-rules/${rules[0]!.id}`);
      const two = (await a!.app.inject({ url: `/em-rules/${rules[1]!.id}`, headers: access.headers })).json();
      await call('PUT', `/em-rules/${rules[1]!.id}`, {
        ...two,
        conditions: { ...two.conditions, queries: ['sleeve'] },
      });
      await call('POST', `/em-rules/${rules[1]!.id}/publish`);
      await call('POST', `/em-rules/${rules[2]!.id}/unpublish`);
      await converged([[], [], ['two']]);
      assert.equal(b!.app.parts.evaluation.rebuilds.fullBuilds, fullBuilds, 'no studio compiled afresh');
    });

    test('a studio larger than one read page is read whole, ties of creation date included', async (t) => {
      const { app, store } = await build(t, engine);
      await studioWithToken(app, 'shop');
      const access = await studioWithToken(app, 'other');
      const rules = Array.from({ length: 1_100 }, (_, n) => {
        const live = content({ type: 'banner', name: `B${n}`, bannerUrl: 'https://b.example/x.png' });
        // Groups of 300 rules share a creation date: the pages' order must still go on.
        const at = new Date(Date.UTC(2026, 0, 1 + Math.floor(n / 300))).toISOString();
        return {
          rule: {
            id: `rule-${String(n).padStart(5, '0')}`,
            studioId: 'shop',
            externalId: null,
            contentType: 'RULE' as const,
            migratedId: null,
            staging: n === 7 ? { ...live, deleted: true } : live,
            live,
            createdBy: 'client:test',
            creationDate: at,
            lastModifiedBy: 'client:test',
            lastModified: at,
          },
          meta: { ...NEW_RULE_META, liveVersion: 1 },
        };
      });
      await insertRules(store.db, rules);
      await app.parts.evaluation.liveChanged('shop');
      const answer = await app.inject({
        url: '/api/studios/shop/evaluate?q=x',
        headers: { authorization: adminAuth },
      });
      const ids = answer.json().rules.map((r: { id: string }) => r.id);
      assert.equal(ids.length, 1_099);
      assert.equal(new Set(ids).size, 1_099);
      assert.ok(!ids.includes('rule-00007'), 'a rule marked for deletion does not fire');
      assert.equal(
        (await app.inject({ url: '/em-rules/evaluate?q=x', headers: access.headers })).json().rules.length,
        0,
      );
    });

    test('rules written by an objects import reach evaluation', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const rule = await createRule(app, access, {
        type: 'redirect',
        name: 'Go',
        url: 'https://x.example/',
        conditions: { queries: ['laptop'] },
      });
      await app.inject({ method: 'POST', url: `/em-rules/${rule.id}/publish`, headers: access.headers });
      const admin = { authorization: adminAuth };
      const exported = await app.inject({ url: '/api/objects/export?type=studio&id=shop', headers: admin });
      assert.equal(exported.statusCode, 200, exported.body);
      await app.inject({ method: 'POST', url: `/em-rules/${rule.id}/unpublish`, headers: access.headers });
      await app.inject({ method: 'DELETE', url: `/em-rules/${rule.id}`, headers: access.headers });
      const redirect = async () =>
        (await app.inject({ url: '/em-rules/evaluate?q=laptop', headers: access.headers })).json().effect
          .redirect;
      assert.equal(await redirect(), null);
      const imported = await app.inject({
        method: 'POST',
        url: '/api/objects/import?policy=merge',
        headers: { ...admin, 'content-type': 'application/json' },
        payload: exported.body,
      });
      assert.equal(imported.statusCode, 200, imported.body);
      assert.equal(await redirect(), 'https://x.example/');
    });

    test('a bulk publish reaches evaluation', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const rule = await createRule(app, access, {
        type: 'banner',
        name: 'B',
        bannerUrl: 'https://b.example/x.png',
      });
      const bulk = await app.inject({
        method: 'POST',
        url: '/em-rules/bulk',
        headers: access.headers,
        payload: { publish: [rule.id] },
      });
      assert.equal(bulk.statusCode, 202, bulk.body);
      await eventually(
        async () => {
          const answer = await app.inject({ url: '/em-rules/evaluate?q=x', headers: access.headers });
          return answer.json().rules.length === 1;
        },
        { within: 5000, message: 'the bulk publish never reached evaluation' },
      );
    });

    test('a rewrite published through the Query Rewrites API rewrites queries, and stops when unpublished', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const created = await app.inject({
        method: 'POST',
        url: '/query-rewrites',
        headers: access.headers,
        payload: { type: 'misspelling', misspelling: 'lapotp', correction: 'laptop' },
      });
      assert.equal(created.statusCode, 201, created.body);
      const { id } = created.json<{ id: string }>();
      const rewritten = async () =>
        (await app.inject({ url: '/em-rules/evaluate?q=lapotp', headers: access.headers })).json()
          .rewrittenQuery;
      const within = (expected: string) =>
        eventually(async () => assert.equal(await rewritten(), expected), {
          within: 2000,
          message: `still not ${expected}`,
        });
      assert.equal(await rewritten(), 'lapotp', 'a draft rewrite does not apply');
      const preview = await app.inject({
        method: 'POST',
        url: '/em-rules/evaluate',
        headers: access.headers,
        payload: { q: 'lapotp', useStaging: true },
      });
      assert.equal(preview.json().rewrittenQuery, 'laptop', 'a preview applies the staging rewrites');
      const publish = await app.inject({
        method: 'POST',
        url: `/query-rewrites/${id}/publish`,
        headers: access.headers,
      });
      assert.equal(publish.statusCode, 200, publish.body);
      await within('laptop');
      await app.inject({ method: 'POST', url: `/query-rewrites/${id}/unpublish`, headers: access.headers });
      await within('lapotp');
    });

    test('applies the live rewrites of the provider before the rules, and follows liveChanged', async (t) => {
      let live: LiveRewrite[] = [
        { id: 'rw-cheap', type: 'removeWords', words: ['cheap'] },
        { id: 'rw-typo', type: 'misspelling', misspelling: 'lapotp', correction: 'laptop' },
      ];
      const rewrites: RewriteSource = { live: async () => live, staging: async () => [] };
      const { app } = await build(t, engine, { rewrites });
      const access = await studioWithToken(app, 'shop');
      const rule = await createRule(app, access, {
        type: 'banner',
        name: 'Bags',
        bannerUrl: 'https://b.example/bags.png',
        conditions: { queries: ['laptop bags'] },
      });
      await app.inject({ method: 'POST', url: `/em-rules/${rule.id}/publish`, headers: access.headers });
      const evaluate = async () =>
        (
          await app.inject({ url: '/em-rules/evaluate?q=Cheap%20lapotp%20bags', headers: access.headers })
        ).json();
      const answer = await evaluate();
      assert.equal(answer.rewrittenQuery, 'laptop bags');
      assert.deepEqual(answer.rewrites, [
        { id: 'rw-cheap', type: 'removeWords', from: 'cheap', to: '' },
        { id: 'rw-typo', type: 'misspelling', from: 'lapotp', to: 'laptop' },
      ]);
      assert.deepEqual(answer.effect.banners, [{ url: 'https://b.example/bags.png', zone: 'top' }]);

      live = [{ id: 'rw-syn', type: 'synonym', input: 'bags', synonyms: ['sleeves'] }];
      assert.equal((await evaluate()).rewrites.length, 2, 'the compiled index holds until told');
      await app.parts.evaluation.liveChanged('shop');
      const after = await evaluate();
      assert.equal(after.rewrittenQuery, 'cheap lapotp bags');
      assert.deepEqual(after.rules, []);
      assert.equal(after.solr.q, 'cheap lapotp (bags OR "sleeves")');
    });
  });
}

/**
 * Two nodes of one database, both listening, and a studio with a client made on the first.
 * Requests go over the wire, so that each node's lane is asked (inject goes to the routes).
 */
async function listeningNodes(t: TestContext, engine: Engine) {
  const [a, b] = (await buildNodes(t, engine, 2)) as [TestApp, TestApp];
  const ports = new Map<TestApp, number>();
  for (const node of [a, b]) {
    await node.app.listen({ port: 0, host: '127.0.0.1' });
    ports.set(node, (node.app.server.address() as AddressInfo).port);
  }
  const access = await studioWithToken(a.app, 'shop');
  const statusOn = async (node: TestApp, headers: Record<string, string>) =>
    Number((await wireGet(ports.get(node)!, `${EVALUATE_PATH}?q=laptop`, headers)).slice(9, 12));
  /**
   * Waits up to 2 s for the node to answer `status`. Until a node's copy holds a client, its
   * route answers (after reading the database): a 200 from the lane is the sign that it does.
   */
  const within = (node: TestApp, headers: Record<string, string>, status: 200 | 401, what: string) => {
    const answered = () => node.app.parts.early.answered(EVALUATE_PATH);
    return eventually(
      async () => {
        const before = answered();
        const got = await statusOn(node, headers);
        return got === status && (status === 401 || answered() === before + 1);
      },
      { within: 2000, message: `node ${node === a ? 'A' : 'B'}: ${what}` },
    );
  };
  return { a, b, access, statusOn, within };
}
