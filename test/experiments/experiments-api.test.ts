// The Experiments API: written and read in Fusion's shape, refused bad input with nothing
// stored, frozen while running (except `enabled`), run by one profile at a time, and promoted
// in one transaction recorded in the history.
import assert from 'node:assert/strict';
import { describe, type TestContext, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { call } from '../helpers/api.js';
import { build, engines, skipReason } from '../helpers/app.js';

const APP = 'shop';
const BASE = `/api/apps/${APP}`;

export const AB = {
  id: 'ab1',
  description: 'Boost names harder',
  uniqueIdParameter: 'user_id',
  variants: [
    { id: 'control', name: 'A', weight: 50 },
    {
      id: 'names',
      name: 'B',
      weight: 50,
      params: [
        { key: 'qf', value: 'name^5 description', policy: 'replace' },
        { key: 'fq', value: 'inStock:true', policy: 'append' },
      ],
    },
  ],
};

/** A cluster (never reached), a studio and a profile `web` of the app. */
async function shop(app: FastifyInstance): Promise<void> {
  const cluster = await call(app, 'PUT', `${BASE}/searchCluster/solr`, {
    id: 'solr',
    connectString: '127.0.0.1:2181/solr',
  });
  assert.ok(cluster.status < 300, JSON.stringify(cluster.body));
  assert.ok((await call(app, 'POST', '/api/studios', { id: 'other', name: 'other' })).status < 300);
  const profile = await call(app, 'PUT', `${BASE}/query-profiles/web`, {
    searchCluster: 'solr',
    collection: 'products',
    defaults: { rows: 10, qf: 'name description', fq: 'visible:true' },
  });
  assert.equal(profile.status, 200, JSON.stringify(profile.body));
}

async function historyOf(app: FastifyInstance, object: string) {
  const events = await call(app, 'GET', `/api/history?size=1000&object=${encodeURIComponent(object)}`);
  assert.equal(events.status, 200, JSON.stringify(events.body));
  return events.body.content as Array<{ action: string; object: string }>;
}

for (const engine of engines) {
  describe(`Experiments API on ${engine}`, { skip: await skipReason(engine) }, () => {
    async function setUp(t: TestContext) {
      const built = await build(t, engine);
      await shop(built.app);
      return built;
    }

    test('an experiment is created, read, listed and replaced in Fusion’s shape, with defaults filled in', async (t) => {
      const { app } = await setUp(t);
      const created = await call(app, 'POST', `${BASE}/experiments`, AB);
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const { createdAt, updatedAt, ...rest } = created.body;
      assert.equal(typeof createdAt, 'string');
      assert.equal(typeof updatedAt, 'string');
      assert.deepEqual(rest, {
        id: 'ab1',
        description: 'Boost names harder',
        uniqueIdParameter: 'user_id',
        variants: [
          { id: 'control', name: 'A', params: [], weight: 50, rewrites: true },
          {
            id: 'names',
            name: 'B',
            weight: 50,
            rewrites: true,
            params: AB.variants[1]!.params,
          },
        ],
        enabled: false,
        metrics: [{ type: 'ctr' }, { type: 'conversion-rate' }, { type: 'no-result-rate' }],
        running: false,
      });
      assert.deepEqual((await call(app, 'GET', `${BASE}/experiments/ab1`)).body, created.body);
      assert.deepEqual((await call(app, 'GET', `${BASE}/experiments`)).body, [created.body]);
      assert.equal((await call(app, 'POST', `${BASE}/experiments`, AB)).status, 409);
      const { id: _id, ...body } = AB;
      const started = await call(app, 'PUT', `${BASE}/experiments/ab1`, { ...body, enabled: true });
      assert.equal(started.status, 200, JSON.stringify(started.body));
      assert.equal(started.body.running, true);
      assert.equal(typeof started.body.startTimestamp, 'string', 'started when first enabled');
      assert.deepEqual((await historyOf(app, 'experiment:shop/ab1')).map((event) => event.action).sort(), [
        'create',
        'update',
      ]);
      assert.equal((await call(app, 'GET', `${BASE}/experiments/nope`)).status, 404);
    });

    test('bad input is refused 400 naming the field, and nothing is stored', async (t) => {
      const { app } = await setUp(t);
      const cases: Array<[string, unknown]> = [
        ['variants', { ...AB, variants: AB.variants.map((v) => ({ ...v, weight: 0 })) }],
        ['variants[1].studio', { ...AB, variants: [AB.variants[0], { ...AB.variants[1], studio: 'ghost' }] }],
        [
          'variants[1].params[0].key',
          { ...AB, variants: [AB.variants[0], { id: 'b', weight: 1, params: [{ key: 'qt', value: '/x' }] }] },
        ],
        [
          'variants[1].params[0].key',
          {
            ...AB,
            variants: [AB.variants[0], { id: 'b', weight: 1, params: [{ key: 'shards', value: 'x:1' }] }],
          },
        ],
        [
          'variants[1].params[0].key',
          {
            ...AB,
            variants: [
              AB.variants[0],
              { id: 'b', weight: 1, params: [{ key: 'stream.url', value: 'http://x' }] },
            ],
          },
        ],
        [
          'variants[1].params[0].value',
          {
            ...AB,
            variants: [
              AB.variants[0],
              { id: 'b', weight: 1, params: [{ key: 'fq', value: '{!join from=a to=b}x:y' }] },
            ],
          },
        ],
        ['variants[1].id', { ...AB, variants: [AB.variants[0], { ...AB.variants[1], id: 'control' }] }],
        ['uniqueIdParameter', { ...AB, uniqueIdParameter: 'q' }],
        [
          'endTimestamp',
          { ...AB, startTimestamp: '2030-01-02T00:00:00Z', endTimestamp: '2030-01-01T00:00:00Z' },
        ],
      ];
      for (const [field, body] of cases) {
        const answer = await call(app, 'POST', `${BASE}/experiments`, body);
        assert.equal(answer.status, 400, `${field}: ${JSON.stringify(answer.body)}`);
        assert.ok(
          answer.body.errors.some((error: { field: string }) => error.field === field),
          `${field}: ${JSON.stringify(answer.body.errors)}`,
        );
      }
      for (const body of [
        { ...AB, variants: [AB.variants[0]] },
        { ...AB, variants: [AB.variants[0], { ...AB.variants[1], weight: -1 }] },
        { ...AB, variants: [AB.variants[0], { ...AB.variants[1], params: [{ key: 'a b', value: '' }] }] },
      ]) {
        assert.equal((await call(app, 'POST', `${BASE}/experiments`, body)).status, 400);
      }
      assert.deepEqual((await call(app, 'GET', `${BASE}/experiments`)).body, []);
      assert.deepEqual(await historyOf(app, 'experiment:shop/ab1'), []);
    });

    test('a running experiment refuses every change but enabled (409); a stopped one takes them', async (t) => {
      const { app } = await setUp(t);
      const { id: _id, ...body } = AB;
      assert.equal(
        (await call(app, 'PUT', `${BASE}/experiments/ab1`, { ...body, enabled: true })).status,
        200,
      );
      const changed = await call(app, 'PUT', `${BASE}/experiments/ab1`, {
        ...body,
        enabled: true,
        description: 'another',
      });
      assert.equal(changed.status, 409, JSON.stringify(changed.body));
      const same = await call(app, 'PUT', `${BASE}/experiments/ab1`, { ...body, enabled: true });
      assert.equal(same.status, 200, 'the same settings again change nothing');
      const stopped = await call(app, 'PUT', `${BASE}/experiments/ab1`, { ...body, enabled: false });
      assert.equal(stopped.status, 200);
      assert.equal(stopped.body.running, false);
      const edited = await call(app, 'PUT', `${BASE}/experiments/ab1`, { ...body, description: 'another' });
      assert.equal(edited.status, 200);
      assert.equal(edited.body.description, 'another');
      // An experiment that ended does not run, whatever `enabled` says, and may change again.
      const ended = await call(app, 'PUT', `${BASE}/experiments/ab1`, {
        ...body,
        enabled: true,
        startTimestamp: '2020-01-01T00:00:00Z',
        endTimestamp: '2020-02-01T00:00:00Z',
      });
      assert.equal(ended.status, 200);
      assert.equal(ended.body.running, false);
    });

    test('a profile runs one experiment of its app, which no other profile runs and which cannot be deleted meanwhile', async (t) => {
      const { app } = await setUp(t);
      assert.equal((await call(app, 'POST', `${BASE}/experiments`, AB)).status, 200);
      const missing = await call(app, 'PUT', `${BASE}/query-profiles/web`, {
        searchCluster: 'solr',
        collection: 'products',
        experiment: 'ghost',
      });
      assert.equal(missing.status, 400);
      assert.equal(missing.body.errors[0].field, 'experiment');
      const runs = await call(app, 'PUT', `${BASE}/query-profiles/web`, {
        searchCluster: 'solr',
        collection: 'products',
        experiment: 'ab1',
      });
      assert.equal(runs.status, 200, JSON.stringify(runs.body));
      assert.equal(runs.body.experiment, 'ab1');
      const second = await call(app, 'PUT', `${BASE}/query-profiles/app2`, {
        searchCluster: 'solr',
        collection: 'products',
        experiment: 'ab1',
      });
      assert.equal(second.status, 409, JSON.stringify(second.body));
      assert.equal((await call(app, 'DELETE', `${BASE}/experiments/ab1`)).status, 409);
      assert.equal(
        (
          await call(app, 'PUT', `${BASE}/query-profiles/web`, {
            searchCluster: 'solr',
            collection: 'products',
          })
        ).status,
        200,
      );
      assert.equal((await call(app, 'DELETE', `${BASE}/experiments/ab1`)).status, 204);
      assert.equal((await call(app, 'GET', `${BASE}/experiments/ab1`)).status, 404);
    });

    test("promotion makes the variant the profile's defaults and studio, stops the experiment and detaches it, recorded", async (t) => {
      const { app } = await setUp(t);
      const variants = [AB.variants[0], { ...AB.variants[1], studio: 'other', rewrites: false }];
      assert.equal(
        (await call(app, 'POST', `${BASE}/experiments`, { ...AB, variants, enabled: true })).status,
        200,
      );
      const attach = await call(app, 'PUT', `${BASE}/query-profiles/web`, {
        searchCluster: 'solr',
        collection: 'products',
        defaults: { rows: 10, qf: 'name description', fq: 'visible:true' },
        experiment: 'ab1',
      });
      assert.equal(attach.status, 200);
      const unknown = await call(app, 'POST', `${BASE}/experiments/ab1/promote`, { variant: 'zzz' });
      assert.equal(unknown.status, 400);
      const promoted = await call(app, 'POST', `${BASE}/experiments/ab1/promote`, { variant: 'names' });
      assert.equal(promoted.status, 200, JSON.stringify(promoted.body));
      assert.equal(promoted.body.profile, 'web');
      assert.equal(promoted.body.experiment.enabled, false);
      assert.equal(promoted.body.experiment.promoted.variant, 'names');
      const profile = (await call(app, 'GET', `${BASE}/query-profiles/web`)).body;
      assert.equal(profile.experiment, undefined);
      assert.equal(profile.studio, 'other');
      assert.equal(profile.rewrites, false);
      assert.deepEqual(profile.defaults, {
        rows: 10,
        qf: 'name^5 description',
        fq: ['visible:true', 'inStock:true'],
      });
      assert.ok((await historyOf(app, 'experiment:shop/ab1')).some((e) => e.action === 'promote'));
      assert.ok((await historyOf(app, 'query-profile:shop/web')).some((e) => e.action === 'promote'));
      // Nothing runs it any more: promoting again has no profile to promote to.
      assert.equal(
        (await call(app, 'POST', `${BASE}/experiments/ab1/promote`, { variant: 'names' })).status,
        409,
      );
    });

    test('a promotion that cannot complete changes nothing: not the profile, not the experiment, not the history', async (t) => {
      const { app } = await setUp(t);
      assert.equal((await call(app, 'POST', `${BASE}/experiments`, { ...AB, enabled: true })).status, 200);
      const attach = await call(app, 'PUT', `${BASE}/query-profiles/web`, {
        searchCluster: 'solr',
        collection: 'products',
        defaults: { rows: 10 },
        experiment: 'ab1',
      });
      assert.equal(attach.status, 200);
      // The profile's cluster is gone since (a forced delete): the profile cannot be written, so nothing happens.
      assert.equal((await call(app, 'DELETE', `${BASE}/searchCluster/solr?force=true`)).status, 204);
      const before = {
        profile: (await call(app, 'GET', `${BASE}/query-profiles/web`)).body,
        experiment: (await call(app, 'GET', `${BASE}/experiments/ab1`)).body,
        history:
          (await historyOf(app, 'experiment:shop/ab1')).length +
          (await historyOf(app, 'query-profile:shop/web')).length,
      };
      const refused = await call(app, 'POST', `${BASE}/experiments/ab1/promote`, { variant: 'names' });
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.deepEqual(
        {
          profile: (await call(app, 'GET', `${BASE}/query-profiles/web`)).body,
          experiment: (await call(app, 'GET', `${BASE}/experiments/ab1`)).body,
          history:
            (await historyOf(app, 'experiment:shop/ab1')).length +
            (await historyOf(app, 'query-profile:shop/web')).length,
        },
        before,
      );
      assert.equal(before.experiment.running, true);
      assert.equal(before.profile.experiment, 'ab1');
    });

    test('an imported profile naming an experiment its app does not hold is imported running none', async (t) => {
      const { app } = await setUp(t);
      const document = {
        metadata: { exportedAt: '2026-01-01T00:00:00.000Z', version: 1, secretsOmitted: [] },
        objects: {
          searchClusters: [],
          studios: [],
          rules: [],
          rewrites: [],
          typeaheadInstances: [],
          links: [],
          queryProfiles: [
            {
              app: APP,
              id: 'imported',
              searchCluster: 'solr',
              collection: 'products',
              experiment: 'elsewhere',
            },
          ],
        },
      };
      const imported = await call(app, 'POST', '/api/objects/import', document);
      assert.equal(imported.status, 200, JSON.stringify(imported.body));
      const profile = (await call(app, 'GET', `${BASE}/query-profiles/imported`)).body;
      assert.equal(profile.experiment, undefined);
      // With the experiment in the app, the reference is kept.
      assert.equal((await call(app, 'POST', `${BASE}/experiments`, { ...AB, id: 'elsewhere' })).status, 200);
      const again = await call(app, 'POST', '/api/objects/import?policy=overwrite', document);
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.equal((await call(app, 'GET', `${BASE}/query-profiles/imported`)).body.experiment, 'elsewhere');
    });
  });
}
