import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { liveRewritesOf, RewritesService, stagingRewritesOf } from '../../src/rewrites/service.js';
import { adminAuth, build, contractTest, engines, skipReason } from '../helpers/app.js';
import { call, createRewrite, publish, REWRITES_ONLY, type RewriteJson, studioWithToken } from './api.js';

const misspelling = { type: 'misspelling', misspelling: 'lapotp', correction: 'laptop' };
const examples = [
  { type: 'synonym', input: 'tv', synonyms: ['television'] },
  { type: 'synonym', synonyms: ['couch', 'sofa', 'settee'] },
  misspelling,
  { type: 'phrase', phrase: 'ipad case', boost: 2 },
  { type: 'headTail', query: 'red nike running shoes for men', head: 'running shoes' },
  { type: 'removeWords', words: ['cheap', 'buy'] },
];

for (const engine of engines) {
  describe(`Query Rewrites API on ${engine}`, { skip: await skipReason(engine) }, () => {
    const contract = contractTest(engine);
    test('creates every kind as a draft, with its fields, defaults and who made it', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop', REWRITES_ONLY);
      for (const body of examples) {
        const created = await createRewrite(app, access, body);
        assert.deepEqual({ ...created, ...body }, created, JSON.stringify(created));
        assert.equal(created.publishState, 'DRAFT');
        assert.equal(created.published, false);
        assert.equal(created.createdBy, 'client:ci');
        assert.equal(created.description, '');
        assert.deepEqual(created.tags, []);
        assert.equal(created.liveContent, null);
        const read = await call(app, access, 'GET', `/query-rewrites/${created.id}`);
        assert.deepEqual(read.json(), created);
        assert.equal(read.headers.etag, `"${created.lastModified}"`);
      }
      const kind = await createRewrite(app, access, { ...misspelling, type: 'MISSPELLING' });
      assert.equal(kind.type, 'misspelling');
    });

    test('walks the publish workflow: edit, If-Match, publish, unpublish, delete mark, restore', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop', REWRITES_ONLY);
      const draft = await createRewrite(app, access, misspelling);
      const url = `/query-rewrites/${draft.id}`;
      const published = (await publish(app, access, draft.id)).json<RewriteJson>();
      assert.equal(published.publishState, 'PUBLISHED');
      assert.equal(published.liveContent?.correction, 'laptop');

      const edited = (
        await call(app, access, 'PUT', url, { ...published, correction: 'laptops' })
      ).json<RewriteJson>();
      assert.equal(edited.publishState, 'PUBLISHED_WITH_DRAFT_EDITS');
      assert.equal(edited.liveContent?.correction, 'laptop');
      const stale = await app.inject({
        method: 'PUT',
        url,
        headers: { ...access.headers, 'if-match': `"${published.lastModified}"` },
        payload: { ...edited, correction: 'laptop' },
      });
      assert.equal(stale.statusCode, 409);
      assert.equal(stale.json().code, 'conflict');
      assert.equal(stale.json().details.lastModified, edited.lastModified);
      const matched = await app.inject({
        method: 'PUT',
        url,
        headers: { ...access.headers, 'if-match': `"${edited.lastModified}"` },
        payload: { ...edited, correction: 'laptop' },
      });
      assert.equal(matched.statusCode, 200, matched.body);
      assert.equal(matched.json().publishState, 'PUBLISHED');
      assert.equal(matched.json().lastModifiedBy, 'client:ci');

      const marked = await call(app, access, 'DELETE', url, undefined, 204);
      assert.equal(marked.body, '');
      const seen = (await call(app, access, 'GET', url)).json<RewriteJson>();
      assert.equal(seen.markedForDeletion, true);
      const restored = (await call(app, access, 'POST', `${url}/restore`)).json<RewriteJson>();
      assert.equal(restored.markedForDeletion, false);
      assert.equal(restored.publishState, 'PUBLISHED');
      const unpublished = (await call(app, access, 'POST', `${url}/unpublish`)).json<RewriteJson>();
      assert.equal(unpublished.publishState, 'DRAFT');
      assert.equal(unpublished.liveContent, null);

      await publish(app, access, draft.id);
      await call(app, access, 'DELETE', url, undefined, 204);
      await publish(app, access, draft.id);
      await call(app, access, 'GET', url, undefined, 404);
      const other = await createRewrite(app, access, misspelling);
      await call(app, access, 'DELETE', `/query-rewrites/${other.id}`, undefined, 204);
      await call(app, access, 'GET', `/query-rewrites/${other.id}`, undefined, 404);
    });

    contract('refuses bad fields of each kind with the common error body, changing nothing', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop', REWRITES_ONLY);
      const bad: Array<[Record<string, unknown>, string]> = [
        [{ type: 'synonym', synonyms: ['only'] }, 'synonyms'],
        [{ type: 'synonym', synonyms: [] }, 'synonyms'],
        [{ type: 'synonym', input: 'tv', synonyms: ['TV'] }, 'synonyms'],
        [{ type: 'synonym', synonyms: ['sofa', 'Sofa'] }, 'synonyms'],
        [{ type: 'synonym', synonyms: ['a', 'b'], correction: 'c' }, 'correction'],
        [{ type: 'misspelling', misspelling: 'lapotp' }, 'correction'],
        [{ type: 'misspelling', misspelling: 'Laptop', correction: 'laptop ' }, 'correction'],
        [{ type: 'misspelling', misspelling: '   ', correction: 'laptop' }, 'misspelling'],
        [{ type: 'phrase', phrase: 'single' }, 'phrase'],
        [{ type: 'phrase', phrase: 'ipad case', boost: 0 }, 'boost'],
        [{ type: 'phrase', phrase: 'ipad case', boost: 'high' }, 'boost'],
        [{ type: 'headTail', query: 'shoes', head: 'Shoes' }, 'head'],
        [{ type: 'headTail', head: 'shoes' }, 'query'],
        [{ type: 'removeWords', words: [] }, 'words'],
        [{ type: 'removeWords', words: 'cheap' }, 'words'],
        [{ type: 'removeWords', words: ['cheap'], effectiveStart: 'soon' }, 'effectiveStart'],
        [
          { ...misspelling, effectiveStart: '2026-02-01T00:00:00Z', effectiveEnd: '2026-01-01T00:00:00Z' },
          'effectiveEnd',
        ],
        [{ type: 'stemming', words: ['x'] }, 'type'],
        [{ words: ['x'] }, 'type'],
        [{ ...misspelling, name: 'named' }, 'name'],
      ];
      for (const [body, field] of bad) {
        const response = await app.inject({
          method: 'POST',
          url: '/query-rewrites',
          headers: access.headers,
          payload: body,
        });
        assert.equal(response.statusCode, 400, `${JSON.stringify(body)}: ${response.body}`);
        const error = response.json();
        assert.equal(error.code, 'invalid-body', response.body);
        assert.equal(typeof error.message, 'string');
        assert.ok(
          error.errors.some((e: { field: string }) => e.field === field),
          `${JSON.stringify(body)} → ${response.body}`,
        );
      }
      const created = await createRewrite(app, access, misspelling);
      const changeType = await app.inject({
        method: 'PUT',
        url: `/query-rewrites/${created.id}`,
        headers: access.headers,
        payload: { type: 'headTail', query: 'a b', head: 'a' },
      });
      assert.equal(changeType.statusCode, 400);
      assert.equal(changeType.json().code, 'invalid-body');
      const listed = (await call(app, access, 'GET', '/query-rewrites')).json();
      assert.equal(listed.page.totalElements, 1);
      assert.deepEqual(listed.content[0], created);
    });

    test('a token reaches only the half of its scope, and only its own studio', async (t) => {
      const { app } = await build(t, engine);
      const rewritesOnly = await studioWithToken(app, 'shop', REWRITES_ONLY);
      const rulesOnly = await studioWithToken(app, 'shop-rules', ['commercestudio.rules']);
      const both = await studioWithToken(app, 'shop-both', [
        'commercestudio.rules',
        'commercestudio.rewrites',
      ]);
      const ask = (headers: { authorization: string }, url: string) => app.inject({ url, headers });
      assert.equal((await ask(rewritesOnly.headers, '/query-rewrites')).statusCode, 200);
      const noRules = await ask(rewritesOnly.headers, '/em-rules');
      assert.equal(noRules.statusCode, 403);
      assert.equal(noRules.json().code, 'forbidden');
      assert.equal((await ask(rulesOnly.headers, '/em-rules')).statusCode, 200);
      const noRewrites = await ask(rulesOnly.headers, '/query-rewrites');
      assert.equal(noRewrites.statusCode, 403);
      assert.equal(noRewrites.json().code, 'forbidden');
      const writeRefused = await app.inject({
        method: 'POST',
        url: '/query-rewrites',
        headers: rulesOnly.headers,
        payload: misspelling,
      });
      assert.equal(writeRefused.statusCode, 403);
      assert.equal((await ask(both.headers, '/em-rules')).statusCode, 200);
      assert.equal((await ask(both.headers, '/query-rewrites')).statusCode, 200);
      assert.equal((await app.inject({ url: '/query-rewrites' })).statusCode, 401);

      const mine = await createRewrite(app, rewritesOnly, misspelling);
      const theirs = await app.inject({ url: `/query-rewrites/${mine.id}`, headers: both.headers });
      assert.equal(theirs.statusCode, 404);
      assert.equal(theirs.json().code, 'not-found');
      const publishTheirs = await app.inject({
        method: 'POST',
        url: `/query-rewrites/${mine.id}/publish`,
        headers: both.headers,
      });
      assert.equal(publishTheirs.statusCode, 404);
      assert.equal((await ask(both.headers, '/query-rewrites')).json().page.totalElements, 0);
      assert.equal(
        (await ask(rewritesOnly.headers, `/studios/shop/query-rewrites/${mine.id}`)).statusCode,
        200,
      );
      assert.equal((await ask(both.headers, '/studios/shop/query-rewrites')).statusCode, 403);
    });

    test('refuses at publish a rewrite that would close a loop, naming it', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop', REWRITES_ONLY);
      const there = await createRewrite(app, access, {
        type: 'misspelling',
        misspelling: 'a',
        correction: 'b',
      });
      const back = await createRewrite(app, access, { type: 'headTail', query: 'B', head: 'a' });
      await publish(app, access, there.id);
      const refused = await publish(app, access, back.id, 409);
      assert.equal(refused.json().code, 'conflict');
      assert.match(refused.json().message, /: a → b → a$/);
      assert.deepEqual(new Set(refused.json().details.rewriteIds), new Set([there.id, back.id]));
      assert.equal(
        (await call(app, access, 'GET', `/query-rewrites/${back.id}`)).json().publishState,
        'DRAFT',
      );

      // Two-way sets are one meaning: a one-way synonym inside one loops onto itself.
      const set = await createRewrite(app, access, { type: 'synonym', synonyms: ['tv', 'television'] });
      await publish(app, access, set.id);
      const inside = await createRewrite(app, access, {
        type: 'synonym',
        input: 'TV',
        synonyms: ['Television'],
      });
      const loop = await publish(app, access, inside.id, 409);
      assert.match(loop.json().message, /TV → Television → TV/);
      // A chain is fine; unpublishing breaks the loop, so the second publish then passes.
      const chain = await createRewrite(app, access, {
        type: 'misspelling',
        misspelling: 'b',
        correction: 'c',
      });
      await publish(app, access, chain.id);
      await call(app, access, 'POST', `/query-rewrites/${there.id}/unpublish`);
      await publish(app, access, back.id);
    });

    test('refuses at publish a loop through part of a query, naming it', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop', REWRITES_ONLY);
      const head = await createRewrite(app, access, {
        type: 'headTail',
        query: 'lapotp bag',
        head: 'laptop bag',
      });
      await publish(app, access, head.id);
      const typo = await createRewrite(app, access, {
        type: 'misspelling',
        misspelling: 'laptop',
        correction: 'lapotp',
      });
      const refused = await publish(app, access, typo.id, 409);
      assert.equal(refused.json().code, 'conflict');
      assert.match(refused.json().message, /: lapotp bag → laptop bag → laptop → lapotp → lapotp bag$/);
      assert.deepEqual(refused.json().details.cycle, [
        'lapotp bag',
        'laptop bag',
        'laptop',
        'lapotp',
        'lapotp bag',
      ]);
      assert.deepEqual(new Set(refused.json().details.rewriteIds), new Set([head.id, typo.id]));

      const grows = await createRewrite(app, access, {
        type: 'misspelling',
        misspelling: 'tv',
        correction: 'tv stand',
      });
      assert.match((await publish(app, access, grows.id, 409)).json().message, /: tv → tv stand → tv$/);
    });

    test('of concurrent publishes that close a loop together, exactly one passes', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop', REWRITES_ONLY);
      for (let round = 0; round < 5; round++) {
        const [a, b] = [`a${round}`, `b${round}`];
        const there = await createRewrite(app, access, {
          type: 'misspelling',
          misspelling: a,
          correction: b,
        });
        const back = await createRewrite(app, access, { type: 'misspelling', misspelling: b, correction: a });
        const answers = await Promise.all(
          [there, back, there].map((r) =>
            app.inject({ method: 'POST', url: `/query-rewrites/${r.id}/publish`, headers: access.headers }),
          ),
        );
        const statuses = answers.map((answer) => answer.statusCode);
        assert.equal(
          statuses.filter((status) => status === 409).length,
          statuses[1] === 409 ? 1 : 2,
          `${statuses}`,
        );
        const live = (await call(app, access, 'GET', '/query-rewrites?published=true&size=100')).json();
        assert.equal(live.content.filter((r: RewriteJson) => [there.id, back.id].includes(r.id)).length, 1);
      }
    });

    test('lists with filters, sorts and pages that never skip or repeat', async (t) => {
      let clock = Date.parse('2026-03-01T00:00:00Z');
      const tick = () => {
        clock += 1000;
        return new Date(clock);
      };
      const { app } = await build(t, engine, { now: tick });
      const access = await studioWithToken(app, 'shop', REWRITES_ONLY);
      const ids: string[] = [];
      for (const [index, body] of [...examples, ...examples].entries()) {
        const created = await createRewrite(app, access, { ...body, description: `number ${index}` });
        ids.push(created.id);
        if (index % 3 === 0) await publish(app, access, created.id);
      }
      const list = async (query: string) =>
        (await call(app, access, 'GET', `/query-rewrites?${query}`)).json<{
          content: RewriteJson[];
          page: { totalElements: number; totalPages: number; size: number; number: number };
        }>();
      const all = await list('size=100');
      assert.equal(all.page.totalElements, 12);
      // Default order: lastModified, newest first.
      const times = all.content.map((r) => r.lastModified);
      assert.deepEqual(times, [...times].sort().reverse());

      const seen: string[] = [];
      for (let page = 0; page < 3; page++) {
        const part = await list(`size=5&page=${page}&sort=creationDate,asc`);
        assert.equal(part.page.totalPages, 3);
        seen.push(...part.content.map((r) => r.id));
      }
      assert.deepEqual(seen, ids);

      assert.equal((await list('types=SYNONYM')).page.totalElements, 4);
      assert.equal((await list('types=synonym,removeWords')).page.totalElements, 6);
      assert.equal((await list('types=headTail&types=phrase')).page.totalElements, 4);
      assert.equal((await list('publishState=published')).page.totalElements, 4);
      assert.equal((await list('published=false')).page.totalElements, 8);
      assert.equal((await list('searchQuery=telev')).page.totalElements, 2);
      assert.equal((await list('searchQuery=NUMBER 1')).page.totalElements, 3);
      assert.equal((await list('searchQuery=couch sofa')).page.totalElements, 2);
      const types = (await list('sort=type,desc&size=100')).content.map((r) => r.type);
      assert.deepEqual(types, [...types].sort().reverse());
      const middle = all.content[6]!.lastModified;
      const after = await list(`lastModifiedStart=${middle}&size=100`);
      assert.equal(after.page.totalElements, 7);
      const created = await list(`creationDateEnd=${encodeURIComponent('2026-03-01T00:00:03Z')}`);
      assert.ok(created.content.every((r) => String(r.creationDate) <= '2026-03-01T00:00:03.000Z'));

      for (const query of [
        'types=stemming',
        'published=maybe',
        'lastModifiedStart=yesterday',
        'sort=asc',
        'size=0',
        'sort=textSearchRelevance',
        'publishState=LIVE',
      ]) {
        const response = await app.inject({ url: `/query-rewrites?${query}`, headers: access.headers });
        assert.equal(response.statusCode, 400, `${query}: ${response.body}`);
        assert.equal(response.json().code, 'invalid-parameter', query);
      }
    });

    test('sorts by textSearchRelevance: the rewrite with more words beginning with the search first', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop', REWRITES_ONLY);
      const once = await createRewrite(app, access, {
        type: 'removeWords',
        words: ['cheap'],
        description: 'laptop',
      });
      const twice = await createRewrite(app, access, {
        type: 'misspelling',
        misspelling: 'lapotp',
        correction: 'laptop',
      });
      const thrice = await createRewrite(app, access, {
        type: 'synonym',
        input: 'laptop',
        synonyms: ['laptops', 'lapdesk'],
      });
      await createRewrite(app, access, { type: 'phrase', phrase: 'desk lamp' });
      const ids = async (query: string) => {
        const response = await call(app, access, 'GET', `/query-rewrites?${query}`);
        const page = response.json<{ content: RewriteJson[]; page: { totalElements: number } }>();
        return { ids: page.content.map((r) => r.id), total: page.page.totalElements };
      };
      assert.deepEqual(await ids('searchQuery=LAP&sort=textSearchRelevance'), {
        ids: [thrice.id, twice.id, once.id],
        total: 3,
      });
      assert.deepEqual(await ids('searchQuery=lap&sort=textSearchRelevance&size=1&page=1'), {
        ids: [twice.id],
        total: 3,
      });
      assert.deepEqual(await ids('searchQuery=lap&types=misspelling,removeWords&sort=textSearchRelevance'), {
        ids: [twice.id, once.id],
        total: 2,
      });
      assert.deepEqual(await ids('searchQuery=lap%20lapd&sort=textSearchRelevance'), {
        ids: [thrice.id],
        total: 1,
      });
      const combined = '/query-rewrites?searchQuery=lap&sort=textSearchRelevance,type';
      assert.equal(
        (await call(app, access, 'GET', combined, undefined, 400)).json().code,
        'invalid-parameter',
      );
    });

    test('bulk applies each item in order, recording failures, loops included', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop', REWRITES_ONLY);
      const existing = await createRewrite(app, access, {
        type: 'misspelling',
        misspelling: 'x',
        correction: 'y',
      });
      const response = await call(app, access, 'POST', '/query-rewrites/bulk', {
        create: [
          misspelling,
          { type: 'phrase', phrase: 'alone' },
          { type: 'misspelling', misspelling: 'y', correction: 'x' },
        ],
        update: [{ id: existing.id, type: 'misspelling', misspelling: 'x', correction: 'z' }],
        delete: ['no-such-rewrite'],
        publish: [existing.id, 'no-such-rewrite'],
      });
      const result = response.json();
      assert.deepEqual(result.counts, { created: 2, updated: 1, deleted: 0, published: 1, failed: 3 });
      assert.equal(result.created.length, 2);
      assert.deepEqual(
        result.errors.map((e: { operation: string; index: number }) => [e.operation, e.index]),
        [
          ['create', 1],
          ['delete', 4],
          ['publish', 6],
        ],
      );
      const [, loopy] = result.created;
      const publishLoop = await call(app, access, 'POST', '/query-rewrites/bulk', { publish: [loopy] });
      assert.equal(publishLoop.json().counts.failed, 0, 'x → z and y → x make no loop');
      const closing = await createRewrite(app, access, {
        type: 'misspelling',
        misspelling: 'z',
        correction: 'y',
      });
      const refused = await call(app, access, 'POST', '/query-rewrites/bulk', { publish: [closing.id] });
      assert.equal(refused.json().counts.failed, 1);
      assert.match(refused.json().errors[0].message, /→/);
      const empty = await app.inject({
        method: 'POST',
        url: '/query-rewrites/bulk',
        headers: access.headers,
        payload: {},
      });
      assert.equal(empty.statusCode, 400);
      assert.equal(empty.json().code, 'invalid-body');
    });

    test('a studio with rewrites is deleted only when forced', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop', REWRITES_ONLY);
      await createRewrite(app, access, misspelling);
      const admin = (url: string) =>
        app.inject({ method: 'DELETE', url, headers: { authorization: adminAuth } });
      const refused = await admin('/api/studios/shop');
      assert.equal(refused.statusCode, 409);
      assert.equal(refused.json().code, 'conflict');
      assert.match(refused.json().message, /rewrites/);
      assert.equal((await admin('/api/studios/shop?force=true')).statusCode, 204);
    });

    test('gives evaluation the live and staging sets, and tells it when live changed', async (t) => {
      const { app, store } = await build(t, engine);
      await studioWithToken(app, 'shop', REWRITES_ONLY);
      const other = await studioWithToken(app, 'other', REWRITES_ONLY);
      const changed: string[] = [];
      const service = new RewritesService(
        () => new Date(),
        (studioId) => changed.push(studioId),
      );
      const actor = { studioId: 'shop', clientName: 'ci' };
      const first = (await service.create(store.db, actor, misspelling)).rewrite;
      const second = (
        await service.create(store.db, actor, { type: 'removeWords', words: ['cheap'] } as never)
      ).rewrite;
      await createRewrite(app, other, misspelling);
      assert.deepEqual(changed, []);
      assert.deepEqual(await liveRewritesOf(store.db, 'shop'), []);
      assert.deepEqual(
        (await stagingRewritesOf(store.db, 'shop')).map((r) => r.id),
        [first.id, second.id],
      );
      await service.act(store.db, 'publish', actor, first.id);
      await service.act(store.db, 'publish', actor, second.id);
      assert.deepEqual(changed, ['shop', 'shop']);
      assert.deepEqual(await liveRewritesOf(store.db, 'shop'), [
        {
          type: 'misspelling',
          misspelling: 'lapotp',
          correction: 'laptop',
          id: first.id,
          effectiveStart: null,
          effectiveEnd: null,
        },
        { type: 'removeWords', words: ['cheap'], id: second.id, effectiveStart: null, effectiveEnd: null },
      ]);
      await service.update(store.db, actor, first.id, { ...misspelling, correction: 'laptops' });
      assert.equal(changed.length, 2, 'a staging edit leaves live alone');
      await service.remove(store.db, actor, second.id);
      assert.equal(changed.length, 3, 'a deletion mark hides it from evaluation');
      assert.deepEqual(
        (await liveRewritesOf(store.db, 'shop')).map((r) => r.id),
        [first.id],
      );
      assert.deepEqual(
        (await stagingRewritesOf(store.db, 'shop')).map((r) => r.id),
        [first.id],
      );
      await service.act(store.db, 'unpublish', actor, first.id);
      assert.equal(changed.length, 4);
      assert.deepEqual(await liveRewritesOf(store.db, 'shop'), []);
    });
  });
}
