// Restoring a rule to an earlier version from its history: `GET /em-rules/{id}/history` and
// `POST /em-rules/{id}/history/{historyId}/restore`, on both engines (the rule row, its
// recreation under its id and the events are what the database stores and reads back).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { recordChange } from '../../src/history/service.js';
import { adminAuth, build, contractTest, engines, skipReason } from '../helpers/app.js';
import { createUser, signIn } from '../users/helpers.js';
import { createRule, type RuleJson, type StudioAccess, studioWithToken } from './api.js';

const block = { type: 'blockList', name: 'Block P1', fieldName: 'id', fieldValues: ['P1'] };

interface Event {
  id: string;
  at: string;
  actor: string;
  action: string;
  object: string;
  summary: string;
  before?: { staging: Record<string, unknown>; live: Record<string, unknown> | null };
  after?: { staging: Record<string, unknown>; live: Record<string, unknown> | null };
  data?: unknown;
}

async function send(
  app: FastifyInstance,
  access: StudioAccess,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  payload?: object,
  headers: Record<string, string> = {},
) {
  const response = await app.inject({
    method,
    url,
    headers: { ...access.headers, ...headers },
    ...(payload ? { payload } : {}),
  });
  return {
    status: response.statusCode,
    // biome-ignore lint/suspicious/noExplicitAny: each test asserts the shape it reads
    body: response.body ? (response.json() as any) : undefined,
    response,
  };
}

/** A rule's history through the Rules API, newest first. */
async function historyOf(app: FastifyInstance, access: StudioAccess, id: string): Promise<Event[]> {
  const answer = await send(app, access, 'GET', `/em-rules/${id}/history?size=1000`);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.content as Event[];
}

/** Every event of the whole history (the admin's listing), oldest first. */
async function allEvents(app: FastifyInstance): Promise<Event[]> {
  const answer = await app.inject({ url: '/api/history?size=1000', headers: { authorization: adminAuth } });
  return (answer.json().content as Event[]).reverse();
}

function restore(
  app: FastifyInstance,
  access: StudioAccess,
  id: string,
  historyId: string,
  ifMatch?: string,
) {
  return send(
    app,
    access,
    'POST',
    `/em-rules/${id}/history/${historyId}/restore`,
    undefined,
    ifMatch === undefined ? {} : { 'if-match': ifMatch },
  );
}

function eventOf(events: Event[], action: string): Event {
  const event = events.find((e) => e.action === action);
  assert.ok(event, `no ${action} event in ${events.map((e) => e.action).join(', ')}`);
  return event;
}

for (const engine of engines) {
  describe(`restoring a rule from its history on ${engine}`, { skip: await skipReason(engine) }, () => {
    const contract = contractTest(engine);

    test('restores an edited, published rule to its first version as staging, and records it', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const rule = await createRule(app, access, { ...block, externalId: 'blk', tags: ['sale'] });
      const url = `/em-rules/${rule.id}`;
      const edited = await send(app, access, 'PUT', url, {
        ...block,
        name: 'Block P1 and P2',
        fieldValues: ['P1', 'P2'],
      });
      assert.equal(edited.status, 200);
      assert.equal((await send(app, access, 'POST', `${url}/publish`)).status, 200);

      const history = await historyOf(app, access, 'blk');
      assert.deepEqual(
        history.map((e) => e.action),
        ['publish', 'update', 'create'],
      );
      const created = eventOf(history, 'create');
      const restored = await restore(app, access, 'blk', created.id);
      assert.equal(restored.status, 200, JSON.stringify(restored.body));
      const answered = restored.body as RuleJson;
      assert.equal(answered.id, rule.id);
      assert.equal(answered.name, 'Block P1');
      assert.deepEqual(answered.fieldValues, ['P1']);
      assert.deepEqual(answered.tags, ['sale']);
      assert.equal(answered.publishState, 'PUBLISHED_WITH_DRAFT_EDITS', 'live waits for a publish');
      assert.equal(answered.liveContent?.name, 'Block P1 and P2');
      assert.equal(answered.lastModifiedBy, 'client:ci');
      assert.equal(restored.response.headers.etag, `"${answered.lastModified}"`);
      const read = await send(app, access, 'GET', url);
      assert.equal(read.body.name, 'Block P1');
      assert.equal(read.body.lastModified, answered.lastModified);

      const [event] = await historyOf(app, access, rule.id);
      assert.equal(event?.action, 'restore-version');
      assert.equal(event?.actor, 'client:ci');
      assert.equal(event?.object, `rule:${rule.id}`);
      assert.deepEqual(event?.data, { historyId: created.id });
      assert.match(event?.summary ?? '', new RegExp(created.id));
      assert.equal(event?.before?.staging.name, 'Block P1 and P2');
      assert.equal(event?.after?.staging.name, 'Block P1');
      assert.equal(event?.after?.live?.name, 'Block P1 and P2');

      // Published, the restored version is live.
      const published = await send(app, access, 'POST', `${url}/publish`);
      assert.equal(published.body.publishState, 'PUBLISHED');
      assert.equal(published.body.liveContent.name, 'Block P1');
    });

    test('restores a removed draft with its id, externalId and creation, as a draft', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const rule = await createRule(app, access, { ...block, externalId: 'blk' });
      const url = `/em-rules/${rule.id}`;
      await send(app, access, 'PUT', url, { ...block, name: 'Last name' });
      assert.equal((await send(app, access, 'DELETE', url)).status, 204);
      assert.equal((await send(app, access, 'GET', url)).status, 404);

      // Its history stays listed by its id (not by its externalId, which no rule holds now).
      const history = await historyOf(app, access, rule.id);
      assert.deepEqual(
        history.map((e) => e.action),
        ['delete', 'update', 'create'],
      );
      assert.equal((await send(app, access, 'GET', '/em-rules/blk/history')).status, 404);
      const deleted = eventOf(history, 'delete');
      assert.equal(deleted.after, undefined);

      const restored = await restore(app, access, rule.id, deleted.id);
      assert.equal(restored.status, 200, JSON.stringify(restored.body));
      const back = restored.body as RuleJson;
      assert.equal(back.id, rule.id);
      assert.equal(back.externalId, 'blk');
      assert.equal(back.name, 'Last name', 'the content it had when it was removed');
      assert.equal(back.publishState, 'DRAFT');
      assert.equal(back.creationDate, rule.creationDate);
      assert.equal(back.createdBy, 'client:ci');
      assert.ok(back.lastModified > rule.lastModified);
      assert.equal((await send(app, access, 'GET', '/em-rules/blk')).body.id, rule.id);
      const listed = await send(app, access, 'GET', '/em-rules?searchQuery=last');
      assert.deepEqual(
        listed.body.content.map((r: RuleJson) => r.id),
        [rule.id],
        'the listing and its search index have it again',
      );

      const [event] = await historyOf(app, access, rule.id);
      assert.equal(event?.action, 'restore-version');
      assert.equal(event?.before, undefined, 'it came back: nothing before');
      assert.equal(event?.after?.staging.name, 'Last name');
      assert.match(event?.summary ?? '', /recreated/);

      // The restored rule is a rule like any other: an earlier version of it restores over it.
      const restoredAgain = await restore(app, access, rule.id, eventOf(history, 'create').id);
      assert.equal(restoredAgain.status, 200);
      assert.equal(restoredAgain.body.name, 'Block P1');
    });

    test('restores a published rule removed by a publish as a draft; live waits for a publish', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const rule = await createRule(app, access, block);
      const url = `/em-rules/${rule.id}`;
      await send(app, access, 'POST', `${url}/publish`);
      assert.equal((await send(app, access, 'DELETE', url)).status, 204);
      const marked = eventOf(await historyOf(app, access, rule.id), 'delete');
      assert.equal(marked.after?.staging.deleted, true, 'a published rule is marked first');
      assert.equal((await send(app, access, 'POST', `${url}/publish`)).status, 200);
      assert.equal((await send(app, access, 'GET', url)).status, 404);

      // The version at the mark: its content, without the mark.
      const restored = await restore(app, access, rule.id, marked.id);
      assert.equal(restored.status, 200, JSON.stringify(restored.body));
      assert.equal(restored.body.publishState, 'DRAFT');
      assert.equal(restored.body.deleted, false);
      assert.equal(restored.body.markedForDeletion, false);
      assert.equal(restored.body.liveContent, null);
      const evaluated = await send(app, access, 'GET', '/em-rules/evaluate?q=anything');
      assert.deepEqual(evaluated.body.rules, [], 'a draft does not fire');
      assert.equal((await send(app, access, 'POST', `${url}/publish`)).body.publishState, 'PUBLISHED');
      const fired = await send(app, access, 'GET', '/em-rules/evaluate?q=anything');
      assert.deepEqual(
        fired.body.rules.map((r: { id: string }) => r.id),
        [rule.id],
      );
    });

    test('a rule marked for deletion restored to a version is no longer marked', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const rule = await createRule(app, access, block);
      const url = `/em-rules/${rule.id}`;
      await send(app, access, 'POST', `${url}/publish`);
      await send(app, access, 'DELETE', url);
      const published = eventOf(await historyOf(app, access, rule.id), 'publish');
      const restored = await restore(app, access, rule.id, published.id);
      assert.equal(restored.status, 200);
      assert.equal(restored.body.markedForDeletion, false);
      assert.equal(restored.body.publishState, 'PUBLISHED');
      const fired = await send(app, access, 'GET', '/em-rules/evaluate?q=anything');
      assert.deepEqual(
        fired.body.rules.map((r: { id: string }) => r.id),
        [rule.id],
        'the live rule fires again, as after a restore of the mark',
      );
    });

    test('a wrong event is a 4xx with the common error body, and nothing changes', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const other = await studioWithToken(app, 'other');
      const rule = await createRule(app, access, block);
      const sibling = await createRule(app, access, { ...block, name: 'Sibling' });
      const foreign = await createRule(app, other, { ...block, name: 'Foreign' });
      const url = `/em-rules/${rule.id}`;
      await send(app, access, 'PUT', url, { ...block, name: 'Edited' });
      const note = await app.inject({
        method: 'POST',
        url: '/api/history',
        headers: { authorization: adminAuth },
        payload: { object: `rule:${rule.id}`, action: 'review', summary: 'reviewed', data: { ok: true } },
      });
      assert.equal(note.statusCode, 201);
      const siblingEvent = eventOf(await historyOf(app, access, sibling.id), 'create');
      const foreignEvent = eventOf(await historyOf(app, other, foreign.id), 'create');
      const before = await send(app, access, 'GET', url);
      const eventsBefore = (await allEvents(app)).length;

      const cases: Array<[string, string, number, string]> = [
        ['an unknown event', '00000000-0000-4000-8000-000000000000', 404, 'not-found'],
        ["another rule's event", siblingEvent.id, 404, 'not-found'],
        ["another studio's event", foreignEvent.id, 404, 'not-found'],
        ['an event without content', note.json().id, 409, 'conflict'],
      ];
      for (const [what, historyId, status, code] of cases) {
        const answer = await restore(app, access, rule.id, historyId);
        assert.equal(answer.status, status, `${what}: ${JSON.stringify(answer.body)}`);
        assert.equal(answer.body.code, code, what);
        assert.equal(answer.body.status, status, what);
        assert.equal(answer.body.path, `${url}/history/${historyId}/restore`, what);
        assert.equal(typeof answer.body.message, 'string', what);
      }
      const noContent = await restore(app, access, rule.id, note.json().id);
      assert.match(noContent.body.message, /records no content/);
      // Another studio's rule, by its id, is not found either way.
      assert.equal((await restore(app, access, foreign.id, foreignEvent.id)).status, 404);
      assert.equal((await send(app, access, 'GET', `/em-rules/${foreign.id}/history`)).status, 404);
      assert.equal((await send(app, access, 'GET', '/em-rules/no-such-rule/history')).status, 404);

      const after = await send(app, access, 'GET', url);
      assert.deepEqual(after.body, before.body, 'the rule is as it was');
      assert.equal((await allEvents(app)).length, eventsBefore, 'no event was recorded');
    });

    contract('a recorded content that is no valid rule today is a 409 naming its fields', async (t) => {
      const { app, store } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const rule = await createRule(app, access, block);
      const created = eventOf(await historyOf(app, access, rule.id), 'create');
      const after = structuredClone(created.after) as { staging: Record<string, unknown> };
      after.staging.fieldValues = [];
      await recordChange(store.db, {
        actor: 'client:ci',
        action: 'update',
        object: `rule:${rule.id}`,
        summary: 'an update of an older version',
        after,
      });
      const [old] = await historyOf(app, access, rule.id);
      const answer = await restore(app, access, rule.id, old!.id);
      assert.equal(answer.status, 409, JSON.stringify(answer.body));
      assert.equal(answer.body.code, 'conflict');
      assert.deepEqual(
        answer.body.errors.map((e: { field: string }) => e.field),
        ['fieldValues'],
      );
      assert.equal(
        (await send(app, access, 'GET', `/em-rules/${rule.id}`)).body.lastModified,
        rule.lastModified,
      );
    });

    test('If-Match as for PUT: a stale version is a 409, the current one restores', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const rule = await createRule(app, access, block);
      const url = `/em-rules/${rule.id}`;
      const edited = await send(app, access, 'PUT', url, { ...block, name: 'Edited' });
      const created = eventOf(await historyOf(app, access, rule.id), 'create');
      const stale = await restore(app, access, rule.id, created.id, `"${rule.lastModified}"`);
      assert.equal(stale.status, 409);
      assert.equal(stale.body.code, 'conflict');
      assert.equal((await send(app, access, 'GET', url)).body.name, 'Edited');
      const current = await restore(app, access, rule.id, created.id, edited.response.headers.etag as string);
      assert.equal(current.status, 200, JSON.stringify(current.body));
      assert.equal(current.body.name, 'Block P1');

      await send(app, access, 'DELETE', url);
      const removed = await restore(app, access, rule.id, created.id, `"${current.body.lastModified}"`);
      assert.equal(removed.status, 409, 'a removed rule has no version to match');
      assert.equal((await send(app, access, 'GET', url)).status, 404);
    });

    test('concurrent restores of a removed rule bring back one rule', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const rule = await createRule(app, access, block);
      await send(app, access, 'DELETE', `/em-rules/${rule.id}`);
      const deleted = eventOf(await historyOf(app, access, rule.id), 'delete');
      const answers = await Promise.all(
        Array.from({ length: 4 }, () => restore(app, access, rule.id, deleted.id)),
      );
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200, 200, 200],
        JSON.stringify(answers.map((a) => a.body)),
      );
      const listed = await send(app, access, 'GET', '/em-rules');
      assert.deepEqual(
        listed.body.content.map((r: RuleJson) => r.id),
        [rule.id],
      );
      const restores = (await historyOf(app, access, rule.id)).filter((e) => e.action === 'restore-version');
      assert.equal(restores.length, 4);
      assert.equal(restores.filter((e) => e.before === undefined).length, 1, 'one recreated it');
    });

    test('a removed rule cannot come back with an externalId another rule took since', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const rule = await createRule(app, access, { ...block, externalId: 'blk' });
      await send(app, access, 'DELETE', `/em-rules/${rule.id}`);
      await createRule(app, access, { ...block, externalId: 'blk', name: 'Newcomer' });
      const deleted = eventOf(await historyOf(app, access, rule.id), 'delete');
      const answer = await restore(app, access, rule.id, deleted.id);
      assert.equal(answer.status, 409);
      assert.deepEqual(
        answer.body.errors.map((e: { field: string }) => e.field),
        ['externalId'],
      );
      assert.equal((await send(app, access, 'GET', `/em-rules/${rule.id}`)).status, 404);
    });

    contract('a merchandiser restores through the studio path of the console', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const rule = await createRule(app, access, block);
      await send(app, access, 'PUT', `/em-rules/${rule.id}`, { ...block, name: 'Edited' });
      await createUser(app, 'mira', 'merchandiser', { studios: ['shop'] });
      await createUser(app, 'vic', 'viewer');
      const mira = await signIn(app, 'mira');
      const base = `/studios/shop/em-rules/${rule.id}`;
      const listed = await app.inject({ url: `${base}/history`, headers: { cookie: mira.cookie } });
      assert.equal(listed.statusCode, 200);
      const created = eventOf(listed.json().content, 'create');

      const viewer = await signIn(app, 'vic');
      const refused = await app.inject({
        method: 'POST',
        url: `${base}/history/${created.id}/restore`,
        headers: { cookie: viewer.cookie, 'x-csrf-token': viewer.csrfToken },
      });
      assert.equal(refused.statusCode, 403, 'a viewer reads the history but restores nothing');
      const restored = await app.inject({
        method: 'POST',
        url: `${base}/history/${created.id}/restore`,
        headers: { cookie: mira.cookie, 'x-csrf-token': mira.csrfToken },
      });
      assert.equal(restored.statusCode, 200, restored.body);
      assert.equal(restored.json().name, 'Block P1');
      assert.equal(restored.json().lastModifiedBy, 'user:mira');
      const [event] = (await app.inject({ url: `${base}/history`, headers: { cookie: mira.cookie } })).json()
        .content as Event[];
      assert.equal(event?.actor, 'user:mira');
      assert.equal(event?.action, 'restore-version');
    });

    contract('the history pages as the other listings do', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const rule = await createRule(app, access, block);
      for (const name of ['a', 'b', 'c'])
        await send(app, access, 'PUT', `/em-rules/${rule.id}`, { ...block, name });
      const page = await send(app, access, 'GET', `/em-rules/${rule.id}/history?size=2&page=1`);
      assert.equal(page.status, 200);
      assert.deepEqual(page.body.page, { size: 2, number: 1, totalElements: 4, totalPages: 2 });
      assert.deepEqual(
        page.body.content.map((e: Event) => e.after?.staging.name),
        ['a', 'Block P1'],
      );
      const bad = await send(app, access, 'GET', `/em-rules/${rule.id}/history?size=0`);
      assert.equal(bad.status, 400);
      assert.equal(bad.body.code, 'invalid-parameter');
    });
  });
}
