// Restoring a query rewrite to an earlier version from its history, as rules do
// (test/rules/restore-version.test.ts has the cases both share in full), on both engines.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { build, engines, skipReason } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';
import { createRule, type StudioAccess } from '../rules/api.js';
import { call, createRewrite, publish, type RewriteJson, studioWithToken } from './api.js';

const misspelling = { type: 'misspelling', misspelling: 'lapotp', correction: 'laptop' };

interface Event {
  id: string;
  actor: string;
  action: string;
  before?: { staging: Record<string, unknown> };
  after?: { staging: Record<string, unknown> };
  data?: unknown;
}

async function historyOf(app: FastifyInstance, access: StudioAccess, id: string): Promise<Event[]> {
  return (await call(app, access, 'GET', `/query-rewrites/${id}/history?size=1000`)).json().content;
}

function restore(app: FastifyInstance, access: StudioAccess, id: string, historyId: string, status = 200) {
  return call(app, access, 'POST', `/query-rewrites/${id}/history/${historyId}/restore`, undefined, status);
}

function eventOf(events: Event[], action: string): Event {
  const event = events.find((e) => e.action === action);
  assert.ok(event, `no ${action} event in ${events.map((e) => e.action).join(', ')}`);
  return event;
}

async function rewrittenQuery(app: FastifyInstance, access: StudioAccess, q: string): Promise<string> {
  return (await call(app, access, 'GET', `/em-rules/evaluate?q=${q}`)).json().rewrittenQuery;
}

for (const engine of engines) {
  describe(`restoring a query rewrite from its history on ${engine}`, {
    skip: await skipReason(engine),
  }, () => {
    test('restores an edited, published rewrite to its first version as staging, and records it', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const rewrite = await createRewrite(app, access, misspelling);
      const url = `/query-rewrites/${rewrite.id}`;
      await call(app, access, 'PUT', url, { ...misspelling, correction: 'notebook' });
      await publish(app, access, rewrite.id);
      await eventually(async () => assert.equal(await rewrittenQuery(app, access, 'lapotp'), 'notebook'));
      const history = await historyOf(app, access, rewrite.id);
      assert.deepEqual(
        history.map((e) => e.action),
        ['publish', 'update', 'create'],
      );
      const created = eventOf(history, 'create');

      const restored = (await restore(app, access, rewrite.id, created.id)).json<RewriteJson>();
      assert.equal(restored.correction, 'laptop');
      assert.equal(restored.publishState, 'PUBLISHED_WITH_DRAFT_EDITS');
      assert.equal(restored.liveContent?.correction, 'notebook');
      assert.equal(await rewrittenQuery(app, access, 'lapotp'), 'notebook', 'live waits for a publish');

      const [event] = await historyOf(app, access, rewrite.id);
      assert.equal(event?.action, 'restore-version');
      assert.equal(event?.actor, 'client:ci');
      assert.deepEqual(event?.data, { historyId: created.id });
      assert.equal(event?.before?.staging.correction, 'notebook');
      assert.equal(event?.after?.staging.correction, 'laptop');

      await publish(app, access, rewrite.id);
      await eventually(async () => assert.equal(await rewrittenQuery(app, access, 'lapotp'), 'laptop'));
    });

    test('restores a removed rewrite with its id as a draft; a marked one is back in effect', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const draft = await createRewrite(app, access, misspelling);
      await call(app, access, 'DELETE', `/query-rewrites/${draft.id}`, undefined, 204);
      await call(app, access, 'GET', `/query-rewrites/${draft.id}`, undefined, 404);
      const deleted = eventOf(await historyOf(app, access, draft.id), 'delete');
      const back = (await restore(app, access, draft.id, deleted.id)).json<RewriteJson>();
      assert.equal(back.id, draft.id);
      assert.equal(back.publishState, 'DRAFT');
      assert.equal(back.creationDate, draft.creationDate);
      assert.equal(back.correction, 'laptop');
      const [event] = await historyOf(app, access, draft.id);
      assert.equal(event?.action, 'restore-version');
      assert.equal(event?.before, undefined);

      const live = await createRewrite(app, access, {
        ...misspelling,
        misspelling: 'kettel',
        correction: 'kettle',
      });
      await publish(app, access, live.id);
      await call(app, access, 'DELETE', `/query-rewrites/${live.id}`, undefined, 204);
      await eventually(async () => assert.equal(await rewrittenQuery(app, access, 'kettel'), 'kettel'));
      const published = eventOf(await historyOf(app, access, live.id), 'publish');
      const unmarked = (await restore(app, access, live.id, published.id)).json<RewriteJson>();
      assert.equal(unmarked.markedForDeletion, false);
      assert.equal(unmarked.publishState, 'PUBLISHED');
      await eventually(async () => assert.equal(await rewrittenQuery(app, access, 'kettel'), 'kettle'));
    });

    test("another rewrite's, a rule's or another studio's event is a 404, and nothing changes", async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const other = await studioWithToken(app, 'other');
      const rewrite = await createRewrite(app, access, misspelling);
      const sibling = await createRewrite(app, access, { ...misspelling, misspelling: 'kettel' });
      const foreign = await createRewrite(app, other, misspelling);
      const rule = await createRule(app, access, {
        type: 'blockList',
        name: 'Block P1',
        fieldName: 'id',
        fieldValues: ['P1'],
      });
      const ruleEvent = (await call(app, access, 'GET', `/em-rules/${rule.id}/history`)).json().content[0];
      const before = (await call(app, access, 'GET', `/query-rewrites/${rewrite.id}`)).json();
      for (const event of [
        eventOf(await historyOf(app, access, sibling.id), 'create'),
        eventOf(await historyOf(app, other, foreign.id), 'create'),
        ruleEvent as Event,
      ]) {
        const answer = await restore(app, access, rewrite.id, event.id, 404);
        assert.equal(answer.json().code, 'not-found');
      }
      await call(app, access, 'GET', `/query-rewrites/${foreign.id}/history`, undefined, 404);
      assert.deepEqual((await call(app, access, 'GET', `/query-rewrites/${rewrite.id}`)).json(), before);
      assert.equal((await historyOf(app, access, rewrite.id)).length, 1);
    });

    test('concurrent restores of a removed rewrite bring back one rewrite', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const rewrite = await createRewrite(app, access, misspelling);
      await call(app, access, 'DELETE', `/query-rewrites/${rewrite.id}`, undefined, 204);
      const deleted = eventOf(await historyOf(app, access, rewrite.id), 'delete');
      await Promise.all(Array.from({ length: 4 }, () => restore(app, access, rewrite.id, deleted.id)));
      const listed = (await call(app, access, 'GET', '/query-rewrites')).json();
      assert.deepEqual(
        listed.content.map((r: RewriteJson) => r.id),
        [rewrite.id],
      );
    });
  });
}
