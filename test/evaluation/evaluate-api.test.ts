import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { adminAuth, build, contractTest, engines, skipReason } from '../helpers/app.js';
import { createRule, publishedRule, studioWithToken } from '../rules/api.js';

const laptops = { conditions: { queries: ['Laptop'] } };

for (const engine of engines) {
  describe(`Evaluation API on ${engine}`, { skip: await skipReason(engine) }, () => {
    const contract = contractTest(engine);
    test('answers the live rules that fire on a query, their effect and the Solr parameters', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const block = await publishedRule(app, access, {
        type: 'blockList',
        name: 'Block old',
        fieldName: 'id',
        fieldValues: ['P1', 'P"2'],
        precedence: 5,
        ...laptops,
      });
      const boost = await publishedRule(app, access, {
        type: 'boostList',
        name: 'Boost acme',
        fieldName: 'brand',
        fieldValues: ['acme'],
        boost: 10,
        ...laptops,
      });
      await publishedRule(app, access, {
        type: 'buryList',
        name: 'Bury refurbished',
        fieldName: 'condition',
        fieldValues: ['refurbished'],
        boost: 2.5,
        conditions: { queries: ['laptop'], queryMatch: 'contains' },
      });
      await publishedRule(app, access, {
        type: 'pinned',
        name: 'Pin',
        pinnedValues: [
          { value: 'P9', position: 1 },
          { value: 'P1', position: 2 },
        ],
        ...laptops,
      });
      await createRule(app, access, { type: 'redirect', name: 'Draft redirect', url: 'https://x.example/' });

      const response = await app.inject({
        url: '/em-rules/evaluate?q=%20LAPTOP%20&explain=true',
        headers: access.headers,
      });
      assert.equal(response.statusCode, 200, response.body);
      const answer = response.json();
      assert.equal(answer.query, ' LAPTOP ');
      assert.equal(answer.rewrittenQuery, 'laptop');
      assert.deepEqual(answer.rewrites, []);
      assert.deepEqual(
        answer.rules.map((r: { name: string }) => r.name),
        ['Block old', 'Boost acme', 'Bury refurbished', 'Pin'],
      );
      assert.deepEqual(answer.rules[0], {
        id: block.id,
        name: 'Block old',
        type: 'blockList',
        precedence: 5,
      });
      assert.deepEqual(answer.effect, {
        blocked: [{ fieldName: 'id', values: ['P1', 'P"2'] }],
        boosts: [{ fieldName: 'brand', value: 'acme', weight: 10 }],
        buries: [{ fieldName: 'condition', value: 'refurbished', weight: 2.5 }],
        pins: [{ value: 'P9', position: 1 }],
        redirect: null,
        banners: [],
        filters: [],
        queryBoosts: [],
        params: [],
        responseValues: {},
        facets: null,
      });
      assert.deepEqual(answer.solr, {
        q: 'laptop',
        fq: ['-id:("P1" OR "P\\"2")'],
        bq: ['brand:"acme"^10', '(*:* -condition:"refurbished")^2.5'],
        elevateIds: 'P9',
        excludeIds: 'P1,P"2',
        params: [],
        facetFields: [],
      });
      assert.equal(answer.explanation.lost.length, 1);
      assert.equal(answer.explanation.lost[0].lost, 'pin P1 at position 2');
      assert.equal(answer.explanation.lost[0].to.id, block.id);
      assert.match(answer.explanation.lost[0].reason, /block beats a pin/);

      const other = await app.inject({ url: '/em-rules/evaluate?q=laptop%20bag', headers: access.headers });
      assert.deepEqual(
        other.json().rules.map((r: { name: string }) => r.name),
        ['Bury refurbished'],
      );
      assert.equal(other.json().explanation, undefined);
      assert.equal(boost.type, 'boostList');
    });

    test('follows unpublish and deletion marks, honours dates, segments, profiles and filters', async (t) => {
      const { app } = await build(t, engine, { now: () => new Date('2026-06-01T00:00:00Z') });
      const access = await studioWithToken(app, 'shop');
      const evaluate = async (query: string) => {
        const response = await app.inject({
          url: `/em-rules/evaluate?q=laptop&${query}`,
          headers: access.headers,
        });
        assert.equal(response.statusCode, 200, response.body);
        // One clock for every rule: the order among equal precedences is by id, so compare sets.
        return response
          .json()
          .rules.map((r: { name: string }) => r.name)
          .sort();
      };
      const banner = { type: 'banner', bannerUrl: 'https://b.example/x.png' };
      // A description that spells the mark is not one.
      const marked = await publishedRule(app, access, {
        ...banner,
        name: 'Marked',
        description: '"deleted":true',
        ...laptops,
      });
      await publishedRule(app, access, {
        ...banner,
        name: 'Summer',
        conditions: { ...laptops.conditions, effectiveStart: '2026-07-01T00:00:00Z' },
      });
      await publishedRule(app, access, { ...banner, name: 'Segmented', segments: ['vip'], ...laptops });
      await publishedRule(app, access, {
        ...banner,
        name: 'Profiled',
        conditions: { ...laptops.conditions, queryProfiles: ['mobile'] },
      });
      await publishedRule(app, access, {
        ...banner,
        name: 'Filtered',
        conditions: {
          ...laptops.conditions,
          fieldValues: [{ fieldName: 'brand', values: ['acme', 'zeta'] }],
        },
      });
      assert.deepEqual(await evaluate(''), ['Marked']);
      assert.deepEqual(await evaluate('at=2026-07-02T00:00:00Z'), ['Marked', 'Summer']);
      assert.deepEqual(await evaluate('segment=x&segment=vip&queryProfile=mobile'), [
        'Marked',
        'Profiled',
        'Segmented',
      ]);
      assert.deepEqual(await evaluate('filter=brand:zeta'), ['Filtered', 'Marked']);
      assert.deepEqual(await evaluate('filter=brand:other'), ['Marked']);

      const mark = await app.inject({
        method: 'DELETE',
        url: `/em-rules/${marked.id}`,
        headers: access.headers,
      });
      assert.equal(mark.statusCode, 204);
      assert.deepEqual(await evaluate(''), []);
      await app.inject({ method: 'POST', url: `/em-rules/${marked.id}/restore`, headers: access.headers });
      assert.deepEqual(await evaluate(''), ['Marked']);
      await app.inject({ method: 'POST', url: `/em-rules/${marked.id}/unpublish`, headers: access.headers });
      assert.deepEqual(await evaluate(''), []);
    });

    test('previews staging content with useStaging, and the live content without it', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      await createRule(app, access, {
        type: 'redirect',
        name: 'Draft',
        url: 'https://x.example/',
        ...laptops,
      });
      const post = (payload: object) =>
        app.inject({ method: 'POST', url: '/em-rules/evaluate', headers: access.headers, payload });
      const live = await post({ q: 'laptop' });
      assert.equal(live.statusCode, 200, live.body);
      assert.equal(live.json().effect.redirect, null);
      const staging = await post({ q: 'laptop', useStaging: true });
      assert.equal(staging.json().effect.redirect, 'https://x.example/');
      assert.equal((await post({ q: 'laptop', filter: ['nocolon'] })).statusCode, 400);
      assert.equal((await post({ q: 'laptop', useStaging: 'yes' })).statusCode, 400);
    });

    test('evaluates a draft rule in place of its saved staging content, or beside it as a new one', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const saved = (await createRule(app, access, {
        type: 'banner',
        name: 'Kettles',
        bannerUrl: 'https://x.example/k.png',
        conditions: { queries: ['kettle'] },
      })) as { id: string };
      const post = (payload: object) =>
        app.inject({ method: 'POST', url: '/em-rules/evaluate', headers: access.headers, payload });
      const fired = async (payload: object) => {
        const answer = await post({ useStaging: true, ...payload });
        assert.equal(answer.statusCode, 200, answer.body);
        return (answer.json().rules as Array<{ id: string }>).map((r) => r.id);
      };
      // Saved: "kettle" only, as a whole query.
      assert.deepEqual(await fired({ q: 'electric kettle' }), []);
      const edited = { id: saved.id, type: 'banner', name: 'Kettles', bannerUrl: 'https://x.example/k.png' };
      const contains = { ...edited, conditions: { queries: ['kettle'], queryMatch: 'contains' } };
      assert.deepEqual(await fired({ q: 'electric kettle', draftRule: contains }), [saved.id]);
      // In place of the saved content: its old condition no longer fires it.
      const other = { ...edited, conditions: { queries: ['toaster'] } };
      assert.deepEqual(await fired({ q: 'kettle', draftRule: other }), []);
      // A rule not saved yet is evaluated beside the staging rules, as "draft".
      const { id: _saved, ...unsaved } = contains;
      assert.deepEqual((await fired({ q: 'kettle', draftRule: unsaved })).sort(), [saved.id, 'draft'].sort());
      // Checked as a create body is, its problems named under draftRule; never stored.
      const bad = await post({ q: 'kettle', useStaging: true, draftRule: { type: 'banner', name: '' } });
      assert.equal(bad.statusCode, 400, bad.body);
      assert.ok(
        (bad.json().errors as Array<{ field: string }>).every((e) => e.field.startsWith('draftRule.')),
        bad.body,
      );
      const noStaging = await post({ q: 'kettle', draftRule: contains });
      assert.equal(noStaging.statusCode, 400, noStaging.body);
      assert.equal(noStaging.json().errors[0].field, 'draftRule');
      const list = await app.inject({ url: '/em-rules', headers: access.headers });
      assert.equal(list.json().totalElements ?? list.json().content?.length, 1, 'nothing stored');
      const stored = await app.inject({ url: `/em-rules/${saved.id}`, headers: access.headers });
      assert.deepEqual(stored.json().conditions.queries, ['kettle'], 'the saved rule is unchanged');
    });

    contract('answers 400 for bad parameters and 401/403 without the right token', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      for (const query of [
        '',
        'q=a&at=yesterday',
        'q=a&filter=brand',
        'q=a&explain=maybe',
        'q=a&unknown=1',
      ]) {
        const response = await app.inject({ url: `/em-rules/evaluate?${query}`, headers: access.headers });
        assert.equal(response.statusCode, 400, `${query}: ${response.body}`);
        assert.equal(response.json().status, 400);
        assert.equal(typeof response.json().code, 'string');
      }
      assert.equal((await app.inject({ url: '/em-rules/evaluate?q=a' })).statusCode, 401);
      const rewrites = await studioWithToken(app, 'other', ['commercestudio.rewrites']);
      assert.equal(
        (await app.inject({ url: '/em-rules/evaluate?q=a', headers: rewrites.headers })).statusCode,
        403,
      );
      const path = await app.inject({ url: '/studios/other/em-rules/evaluate?q=a', headers: access.headers });
      assert.equal(path.statusCode, 403);
    });

    contract('gives admins the same answer at /api/studios/{id}/evaluate', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      await publishedRule(app, access, {
        type: 'redirect',
        name: 'Go',
        url: 'https://x.example/',
        ...laptops,
      });
      const asClient = await app.inject({ url: '/em-rules/evaluate?q=laptop', headers: access.headers });
      const asAdmin = await app.inject({
        url: '/api/studios/shop/evaluate?q=laptop',
        headers: { authorization: adminAuth },
      });
      assert.equal(asAdmin.statusCode, 200, asAdmin.body);
      assert.deepEqual(asAdmin.json(), asClient.json());
      const missing = await app.inject({
        url: '/api/studios/none/evaluate?q=a',
        headers: { authorization: adminAuth },
      });
      assert.equal(missing.statusCode, 404);
      assert.equal((await app.inject({ url: '/api/studios/shop/evaluate?q=a' })).statusCode, 401);
    });

    contract('counts evaluations by outcome and times them in /metrics', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      await publishedRule(app, access, {
        type: 'redirect',
        name: 'Go',
        url: 'https://x.example/',
        ...laptops,
      });
      for (const q of ['laptop', 'laptop', 'phone']) {
        await app.inject({ url: `/em-rules/evaluate?q=${q}`, headers: access.headers });
      }
      const metrics = (await app.inject({ url: '/metrics', headers: { authorization: adminAuth } })).body;
      assert.match(metrics, /^searchdeck_evaluations_total\{outcome="fired"\} 2$/m);
      assert.match(metrics, /^searchdeck_evaluations_total\{outcome="none"\} 1$/m);
      assert.match(metrics, /^searchdeck_evaluation_duration_seconds_count 3$/m);
      assert.match(metrics, /^searchdeck_evaluation_rules_resident 1$/m);
    });
  });
}
