import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { adminAuth, build, engines, skipReason } from '../helpers/app.js';
import { createRule, type RuleJson, studioWithToken } from './api.js';

const block = { type: 'blockList', name: 'Block discontinued', fieldName: 'id', fieldValues: ['P1'] };

for (const engine of engines) {
  describe(`Rules API on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('keeps studios apart: another studio’s rule is not found, other path or host is forbidden', async (t) => {
      const { app } = await build(t, engine);
      const a = await studioWithToken(app, 'studio-a');
      const b = await studioWithToken(app, 'studio-b');
      const rule = await createRule(app, a, { ...block, externalId: 'blk' });
      for (const id of [rule.id, 'blk']) {
        const seen = await app.inject({ url: `/em-rules/${id}`, headers: b.headers });
        assert.equal(seen.statusCode, 404);
        assert.equal((await app.inject({ url: `/em-rules/${id}`, headers: a.headers })).statusCode, 200);
      }
      assert.equal((await app.inject({ url: '/em-rules', headers: b.headers })).json().page.totalElements, 0);
      const path = await app.inject({ url: `/studios/studio-a/em-rules/${rule.id}`, headers: a.headers });
      assert.equal(path.statusCode, 200);
      assert.equal(
        (await app.inject({ url: '/studios/studio-a/em-rules', headers: b.headers })).statusCode,
        403,
      );
      const host = (name: string) =>
        app.inject({ url: '/em-rules', headers: { ...a.headers, host: `${name}.rules.example.com` } });
      assert.equal((await host('studio-b')).statusCode, 403);
      assert.equal((await host('studio-a')).statusCode, 200);
      assert.equal((await host('www')).statusCode, 200);
    });

    test('walks the publish state machine through every transition', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const call = async (method: 'POST' | 'PUT' | 'GET', url: string, payload?: object) => {
        const response = await app.inject({
          method,
          url,
          headers: access.headers,
          ...(payload ? { payload } : {}),
        });
        assert.equal(response.statusCode, 200, response.body);
        return response.json<RuleJson>();
      };
      const draft = await createRule(app, access, { ...block, type: 'BLOCKLIST' });
      assert.equal(draft.type, 'blockList');
      assert.equal(draft.publishState, 'DRAFT');
      assert.equal(draft.published, false);
      assert.equal(draft.createdBy, 'client:ci');
      const url = `/em-rules/${draft.id}`;

      const published = await call('POST', `${url}/publish`);
      assert.equal(published.publishState, 'PUBLISHED');
      assert.equal(published.liveContent?.name, 'Block discontinued');
      const edited = await call('PUT', url, { ...published, name: 'Renamed' });
      assert.equal(edited.publishState, 'PUBLISHED_WITH_DRAFT_EDITS');
      assert.equal(edited.name, 'Renamed');
      assert.equal(edited.liveContent?.name, 'Block discontinued');
      const back = await call('PUT', url, { ...edited, name: 'Block discontinued' });
      assert.equal(back.publishState, 'PUBLISHED');
      await call('PUT', url, { ...back, name: 'Renamed' });
      assert.equal((await call('POST', `${url}/publish`)).publishState, 'PUBLISHED');
      const unpublished = await call('POST', `${url}/unpublish`);
      assert.equal(unpublished.publishState, 'DRAFT');
      assert.equal(unpublished.liveContent, null);

      const changeType = await app.inject({
        method: 'PUT',
        url,
        headers: access.headers,
        payload: { ...block, type: 'banner' },
      });
      assert.equal(changeType.statusCode, 400);
      const wrongField = await app.inject({
        method: 'PUT',
        url,
        headers: access.headers,
        payload: { ...block, url: 'https://x.example' },
      });
      assert.equal(wrongField.statusCode, 400);
      assert.equal(wrongField.json().errors[0].field, 'url');
    });

    test('deletes drafts at once and published rules at the next publish, and restores', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const draft = await createRule(app, access, block);
      await app.inject({
        method: 'PUT',
        url: '/api/links',
        headers: { authorization: adminAuth },
        payload: { subject: `rule:${draft.id}`, object: 'studio:shop', linkType: 'isPartOf' },
      });
      const del = (id: string) =>
        app.inject({ method: 'DELETE', url: `/em-rules/${id}`, headers: access.headers });
      assert.equal((await del(draft.id)).statusCode, 204);
      const linked = await app.inject({
        url: `/api/links/check?subject=rule:${draft.id}`,
        headers: { authorization: adminAuth },
      });
      assert.equal(linked.json(), false, 'the rule took its links with it');
      assert.equal(
        (await app.inject({ url: `/em-rules/${draft.id}`, headers: access.headers })).statusCode,
        404,
      );

      const rule = await createRule(app, access, block);
      const post = (action: string) =>
        app.inject({ method: 'POST', url: `/em-rules/${rule.id}/${action}`, headers: access.headers });
      await post('publish');
      assert.equal((await del(rule.id)).statusCode, 204);
      const marked = (
        await app.inject({ url: `/em-rules/${rule.id}`, headers: access.headers })
      ).json<RuleJson>();
      assert.equal(marked.markedForDeletion, true);
      assert.equal(marked.deleted, true);
      assert.equal(marked.liveContent?.deleted, false);
      const restored = (await post('restore')).json<RuleJson>();
      assert.equal(restored.markedForDeletion, false);
      assert.equal(restored.publishState, 'PUBLISHED');
      const viaPut = await app.inject({
        method: 'PUT',
        url: `/em-rules/${rule.id}`,
        headers: access.headers,
        payload: { ...block, deleted: true },
      });
      assert.equal(viaPut.json().markedForDeletion, true);
      assert.equal((await post('publish')).statusCode, 200);
      assert.equal(
        (await app.inject({ url: `/em-rules/${rule.id}`, headers: access.headers })).statusCode,
        404,
      );
    });

    test('refuses a PUT whose If-Match names an older version', async (t) => {
      let clock = Date.parse('2026-03-01T10:00:00Z');
      const { app } = await build(t, engine, { now: () => new Date(clock) });
      const access = await studioWithToken(app, 'shop');
      const rule = await createRule(app, access, { ...block, externalId: 'blk' });
      const got = await app.inject({ url: '/em-rules/blk', headers: access.headers });
      const etag = String(got.headers.etag);
      const put = (ifMatch: string, name: string) =>
        app.inject({
          method: 'PUT',
          url: '/em-rules/blk',
          headers: { ...access.headers, 'if-match': ifMatch },
          payload: { ...block, name },
        });
      const first = await put(etag, 'First editor');
      assert.equal(first.statusCode, 200);
      const second = await put(etag, 'Second editor');
      assert.equal(second.statusCode, 409);
      assert.equal(second.json().status, 409);
      clock += 1000;
      const third = await put(first.json().lastModified, 'Second editor, again');
      assert.equal(third.statusCode, 200);
      assert.equal(third.json().lastModified, '2026-03-01T10:00:01.000Z');
      assert.equal(third.json().id, rule.id);
      const same = await put(third.json().lastModified, 'x');
      const sameAgain = await put(third.json().lastModified, 'y');
      assert.equal(same.statusCode, 200);
      assert.equal(sameAgain.statusCode, 409, 'writes in one millisecond still get distinct versions');
    });

    test('keeps externalId unique per studio and answers errors in the common body', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const other = await studioWithToken(app, 'other');
      await createRule(app, access, {
        ...block,
        externalId: 'x1',
        contentType: 'QUERY_REWRITE',
        migratedId: 'old-7',
      });
      const again = await app.inject({
        method: 'POST',
        url: '/em-rules',
        headers: access.headers,
        payload: { ...block, externalId: 'x1' },
      });
      assert.equal(again.statusCode, 409);
      await createRule(app, other, { ...block, externalId: 'x1' });
      const got = await app.inject({ url: '/em-rules/x1?fields=MIGRATION', headers: access.headers });
      assert.equal(got.json().contentType, 'QUERY_REWRITE');
      assert.equal(got.json().migratedId, 'old-7');
      const bad = await app.inject({
        method: 'POST',
        url: '/em-rules',
        headers: access.headers,
        payload: { name: 'x', type: 'nope' },
      });
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.json().path, '/em-rules');
      assert.equal(bad.json().error, 'Bad Request');
      const studioBusy = await app.inject({
        method: 'DELETE',
        url: '/api/studios/shop',
        headers: { authorization: adminAuth },
      });
      assert.equal(studioBusy.statusCode, 409);
      await app.inject({
        method: 'PUT',
        url: '/api/links',
        headers: { authorization: adminAuth },
        payload: { subject: 'studio:shop', object: 'app:web', linkType: 'inContextOf' },
      });
      const forced = await app.inject({
        method: 'DELETE',
        url: '/api/studios/shop?force=true',
        headers: { authorization: adminAuth },
      });
      assert.equal(forced.statusCode, 204);
      const linked = await app.inject({
        url: '/api/links/check?subject=studio:shop',
        headers: { authorization: adminAuth },
      });
      assert.equal(linked.json(), false, 'the studio took its links with it');
    });
  });
}
