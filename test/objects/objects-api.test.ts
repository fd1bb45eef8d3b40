import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { call } from '../helpers/api.js';
import { adminAuth, build, engines, skipReason } from '../helpers/app.js';
import { suggest } from '../typeahead/helpers.js';
import { comparable, seedProfile, seedShop } from './seed.js';

const COMMON_FIELDS = ['code', 'error', 'message', 'path', 'status', 'timestamp'];

// biome-ignore lint/suspicious/noExplicitAny: documents are JSON whose shape each test changes
type Doc = any;

async function exportOf(app: FastifyInstance, query = 'app=shop'): Promise<{ text: string; document: Doc }> {
  const response = await app.inject({
    method: 'GET',
    url: `/api/objects/export?${query}`,
    headers: { authorization: adminAuth },
  });
  assert.equal(response.statusCode, 200, response.body);
  assert.match(String(response.headers['content-type']), /^application\/json/);
  return { text: response.body, document: response.json() };
}

/** Everything the instance holds, as an export of it all: what a refused import must leave as it was. */
async function everything(app: FastifyInstance): Promise<Doc> {
  return comparable((await exportOf(app, '')).document);
}

function assertCommonBody(body: Doc, status: number) {
  assert.equal(body.status, status, JSON.stringify(body));
  for (const field of COMMON_FIELDS) assert.ok(field in body, `${field} in ${JSON.stringify(body)}`);
}

for (const engine of engines) {
  describe(`objects export and import on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('an app exported and imported into an empty instance exports the same document', async (t) => {
      const source = await build(t, engine);
      await seedShop(source.app);
      const { document } = await exportOf(source.app);
      assert.deepEqual(document.objects.queryProfiles, []);
      assert.deepEqual(document.objects.rewrites.map((rewrite: Doc) => rewrite.publishState).sort(), [
        'DRAFT',
        'PUBLISHED',
      ]);
      assert.deepEqual(document.objects.rules.map((rule: Doc) => rule.publishState).sort(), [
        'DRAFT',
        'PUBLISHED',
      ]);
      const target = await build(t, engine);
      const imported = await call(target.app, 'POST', '/api/objects/import', document);
      assert.equal(imported.status, 200, JSON.stringify(imported.body));
      assert.equal(imported.body.counts.updated, 0);
      assert.ok(imported.body.created.includes(`rule:${document.objects.rules[0].id}`));
      const again = await exportOf(target.app);
      assert.deepEqual(comparable(again.document), comparable(document));
      // The same app under its own path.
      const scoped = await exportOf(target.app, '');
      assert.deepEqual(comparable(scoped.document).objects, comparable(document).objects);
      const underApp = await call(target.app, 'GET', '/api/apps/shop/objects/export');
      assert.deepEqual(comparable(underApp.body), comparable(document));
    });

    test('secrets never leave: they are named in metadata.secretsOmitted', async (t) => {
      const { app } = await build(t, engine);
      const { secrets } = await seedShop(app);
      const { text, document } = await exportOf(app);
      for (const secret of secrets) assert.ok(!text.includes(secret), 'a secret is in the export');
      assert.ok(!text.includes('********'), 'a masked secret is in the export');
      assert.ok(!text.includes('whsec_'));
      const omitted: string[] = document.metadata.secretsOmitted;
      assert.ok(omitted.includes('search-cluster:prod#authConfig.password'));
      assert.ok(omitted.includes('typeahead:shop-en#embedToken'));
      assert.ok(omitted.some((name) => /^studio:acme#clients\..+\.clientSecret$/.test(name)));
      assert.ok(omitted.includes('studio:acme#syncTargets.https://hooks.example.com/acme.secret'));
    });

    test('an imported cluster lacks its password until a PUT gives it; clients get new secrets', async (t) => {
      const source = await build(t, engine);
      await seedShop(source.app);
      const { document } = await exportOf(source.app);
      const target = await build(t, engine);
      const imported = await call(target.app, 'POST', '/api/objects/import', document);
      assert.deepEqual(imported.body.needsSecret.map((n: Doc) => [n.object, n.secret]).sort(), [
        ['search-cluster:prod', 'authConfig.password'],
        ['typeahead:shop-en', 'embedToken'],
      ]);
      const cluster = await call(target.app, 'GET', '/api/searchCluster/prod');
      assert.equal(cluster.body.authConfig.password, undefined);
      const put = await call(target.app, 'PUT', '/api/searchCluster/prod', {
        ...document.objects.searchClusters[0],
        authConfig: { authType: 'BASIC', username: 'solr', password: 'new-password' },
      });
      assert.equal(put.status, 200, JSON.stringify(put.body));
      assert.equal(put.body.authConfig.password, '********');
      const client = imported.body.secretsIssued.find((s: Doc) => s.secret === 'clientSecret');
      const token = await target.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        payload: `grant_type=client_credentials&client_id=${client.object.slice('client:'.length)}&client_secret=${client.value}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(token.statusCode, 200, token.body);
      assert.ok(imported.body.secretsIssued.some((s: Doc) => s.value.startsWith('whsec_')));
      // The instance is served once its token is rotated, with the imported terms.
      const rotated = await call(target.app, 'POST', '/api/typeahead/instances/shop-en/embed-token');
      assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
      const suggested = await suggest(target.app, rotated.body.embedToken, 'prefix=sh');
      assert.equal(suggested.status, 200, JSON.stringify(suggested.body));
      assert.deepEqual(suggested.body, ['shoes']);
    });

    test('policy abort: any existing object is a 409 naming every one, and nothing is written', async (t) => {
      const { app } = await build(t, engine);
      await seedShop(app);
      const { document } = await exportOf(app);
      const before = await everything(app);
      document.objects.studios[0].name = 'Renamed';
      document.objects.typeaheadInstances.push({ ...document.objects.typeaheadInstances[0], id: 'shop-de' });
      const refused = await call(app, 'POST', '/api/objects/import', document);
      assert.equal(refused.status, 409);
      assertCommonBody(refused.body, 409);
      const conflicts: string[] = refused.body.details.conflicts;
      for (const name of ['search-cluster:prod', 'studio:acme', 'typeahead:shop-en'])
        assert.ok(conflicts.includes(name));
      assert.equal(conflicts.filter((name) => name.startsWith('rule:')).length, 2);
      assert.ok(!conflicts.includes('typeahead:shop-de'));
      assert.deepEqual(await everything(app), before);
    });

    test('policy merge creates what is missing and leaves what exists as it is', async (t) => {
      const { app } = await build(t, engine);
      await seedShop(app);
      const { document } = await exportOf(app);
      document.objects.studios[0].name = 'Renamed';
      document.objects.typeaheadInstances.push({ ...document.objects.typeaheadInstances[0], id: 'shop-de' });
      const merged = await call(app, 'POST', '/api/objects/import?policy=merge', document);
      assert.equal(merged.status, 200, JSON.stringify(merged.body));
      assert.deepEqual(merged.body.created, ['typeahead:shop-de']);
      assert.equal(merged.body.counts.updated, 0);
      assert.ok(merged.body.leftAlone.includes('studio:acme'));
      assert.equal((await call(app, 'GET', '/api/studios/acme')).body.name, 'Studio acme');
      const terms = await call(app, 'GET', '/api/typeahead/instances/shop-de/terms');
      assert.deepEqual(terms.body.included, ['shoes', 'socks']);
    });

    test('policy overwrite replaces what exists with the document', async (t) => {
      const { app } = await build(t, engine);
      await seedShop(app);
      const { document } = await exportOf(app);
      document.objects.studios[0].name = 'Renamed';
      const draft = document.objects.rules.find((rule: Doc) => rule.publishState === 'DRAFT');
      draft.staging.name = 'renamed draft';
      document.objects.typeaheadInstances[0].terms.included = ['boots'];
      // An externalId another rule keeps: a 409, before anything is written.
      const clash = structuredClone(document);
      clash.objects.rules.find((rule: Doc) => rule.id === draft.id).externalId = 'ext-1';
      const before = await everything(app);
      const refused = await call(app, 'POST', '/api/objects/import?policy=overwrite', clash);
      assert.equal(refused.status, 409, JSON.stringify(refused.body));
      assertCommonBody(refused.body, 409);
      assert.deepEqual(await everything(app), before);
      const written = await call(app, 'POST', '/api/objects/import?policy=overwrite', document);
      assert.equal(written.status, 200, JSON.stringify(written.body));
      assert.ok(written.body.updated.includes('studio:acme'));
      assert.ok(written.body.updated.includes(`rule:${draft.id}`));
      assert.equal(written.body.counts.created, 0);
      assert.equal((await call(app, 'GET', '/api/studios/acme')).body.name, 'Renamed');
      const after = await exportOf(app);
      assert.deepEqual(comparable(after.document).objects, comparable(document).objects);
    });

    test('a dry run answers what the import would do and writes nothing', async (t) => {
      const source = await build(t, engine);
      await seedShop(source.app);
      const { document } = await exportOf(source.app);
      const target = await build(t, engine);
      const before = await everything(target.app);
      const dry = await call(target.app, 'POST', '/api/objects/import?dryRun=true', document);
      assert.equal(dry.status, 200, JSON.stringify(dry.body));
      assert.equal(dry.body.dryRun, true);
      assert.equal(dry.body.counts.created, 13);
      assert.deepEqual(dry.body.secretsIssued, []);
      assert.deepEqual(await everything(target.app), before);
      assert.equal((await call(target.app, 'GET', '/api/studios/acme')).status, 404);
      const overwrite = await call(
        source.app,
        'POST',
        '/api/objects/import?dryRun=true&policy=overwrite',
        document,
      );
      assert.equal(overwrite.body.counts.updated, 7);
    });

    test('an import that would publish a rewrite loop is a 409 naming it, and writes nothing', async (t) => {
      const source = await build(t, engine);
      await seedShop(source.app);
      const { document } = await exportOf(source.app);
      const shown = document.objects.rewrites.find((rewrite: Doc) => rewrite.type === 'misspelling');
      const looping = (id: string, misspelling: string, correction: string) => {
        const content = { ...shown.live, misspelling, correction };
        return { ...shown, id, staging: content, live: content };
      };
      document.objects.rewrites.push(
        looping('8d3e2c1a-0000-4000-8000-000000000001', 'tee', 'tea'),
        looping('8d3e2c1a-0000-4000-8000-000000000002', 'tea', 'tee'),
      );
      const target = await build(t, engine);
      const before = await everything(target.app);
      const answer = await call(target.app, 'POST', '/api/objects/import', document);
      assert.equal(answer.status, 409, JSON.stringify(answer.body));
      assertCommonBody(answer.body, 409);
      assert.match(answer.body.message, /loop: te[ae] → te[ae] → te[ae]/);
      assert.deepEqual(await everything(target.app), before);
      // As drafts, the same rewrites import: only live content must not loop.
      for (const rewrite of document.objects.rewrites.slice(-2)) {
        rewrite.live = null;
        rewrite.publishState = 'DRAFT';
      }
      const drafts = await call(target.app, 'POST', '/api/objects/import', document);
      assert.equal(drafts.status, 200, JSON.stringify(drafts.body));
      assert.equal(drafts.body.counts.created, 15);
    });

    test('an import failing halfway writes nothing of what came before the failure', async (t) => {
      const source = await build(t, engine);
      await seedShop(source.app);
      const { document } = await exportOf(source.app);
      const target = await build(t, engine);
      const before = await everything(target.app);
      // Clusters, studios, clients and rules are written before typeahead instances: the second
      // instance breaks the limit on terms, after all of them.
      const many = Array.from({ length: 4001 }, (_, i) => `term ${i}`);
      const failing = structuredClone(document);
      failing.objects.typeaheadInstances.push({
        ...document.objects.typeaheadInstances[0],
        id: 'too-many',
        terms: { included: many.slice(0, 2001), excluded: many.slice(2001) },
      });
      const refused = await call(target.app, 'POST', '/api/objects/import', failing);
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assertCommonBody(refused.body, 400);
      assert.deepEqual(await everything(target.app), before);
      // A rule whose externalId another rule of the document holds: a 409 after the studio was written.
      const clash = structuredClone(document);
      clash.objects.rules[1].externalId = clash.objects.rules[0].externalId ?? 'x';
      clash.objects.rules[0].externalId = clash.objects.rules[1].externalId;
      const conflict = await call(target.app, 'POST', '/api/objects/import', clash);
      assert.equal(conflict.status, 409, JSON.stringify(conflict.body));
      assert.deepEqual(await everything(target.app), before);
      // And the document as it is still imports whole.
      assert.equal((await call(target.app, 'POST', '/api/objects/import', document)).status, 200);
    });

    test('a link naming an object neither in the document nor present is a 400 naming it', async (t) => {
      const { app } = await build(t, engine);
      const document: Doc = {
        metadata: { exportedAt: new Date().toISOString(), version: 1, secretsOmitted: [] },
        objects: {
          searchClusters: [],
          queryProfiles: [],
          studios: [{ id: 'acme', name: 'Acme', syncTargets: [], clients: [] }],
          rules: [],
          rewrites: [],
          typeaheadInstances: [],
          links: [
            { subject: 'studio:acme', object: 'search-cluster:nowhere', linkType: 'dependsOn' },
            { subject: 'studio:acme', object: 'collection:products', linkType: 'dependsOn' },
          ],
        },
      };
      const refused = await call(app, 'POST', '/api/objects/import', document);
      assert.equal(refused.status, 400);
      assertCommonBody(refused.body, 400);
      assert.match(JSON.stringify(refused.body.errors), /search-cluster:nowhere/);
      assert.equal((await call(app, 'GET', '/api/studios/acme')).status, 404);
      document.objects.links = document.objects.links.slice(1);
      const accepted = await call(app, 'POST', '/api/objects/import', document);
      assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
      const linked = await call(
        app,
        'GET',
        '/api/links/check?subject=studio:acme&object=collection:products&linkType=dependsOn',
      );
      assert.equal(linked.body, true);
    });

    test('malformed documents and parameters are 400s in the common body', async (t) => {
      const source = await build(t, engine);
      await seedShop(source.app);
      const { document } = await exportOf(source.app);
      const { app } = await build(t, engine);
      const before = await everything(app);
      const broken: Array<[string, (doc: Doc) => void]> = [
        ['no objects', (doc) => delete doc.objects],
        ['another version', (doc) => (doc.metadata.version = 2)],
        ['an unknown member', (doc) => (doc.objects.history = [])],
        ['a rewrite without its fields', (doc) => doc.objects.rewrites.push({ id: 'r1' })],
        [
          'a rewrite content that is no rewrite',
          (doc) => (doc.objects.rewrites[0].staging = { synonyms: 3 }),
        ],
        ['a rewrite of an absent studio', (doc) => (doc.objects.rewrites[0].studioId = 'nowhere')],
        ['a query profile', (doc) => doc.objects.queryProfiles.push({ id: 'p1' })],
        ['a rule content that is no rule', (doc) => (doc.objects.rules[0].staging = { type: 'nothing' })],
        [
          'a live of another type',
          (doc) => (doc.objects.rules[0].live = { ...doc.objects.rules[1].staging }),
        ],
        ['a cluster twice', (doc) => doc.objects.searchClusters.push(doc.objects.searchClusters[0])],
        [
          'a cluster with a bad connect string',
          (doc) => (doc.objects.searchClusters[0].connectString = 'nope'),
        ],
        ['a rule of an absent studio', (doc) => (doc.objects.studios = [])],
        ['a string for the rules', (doc) => (doc.objects.rules = 'all')],
      ];
      for (const [what, breakIt] of broken) {
        const doc = structuredClone(document);
        breakIt(doc);
        const answer = await call(app, 'POST', '/api/objects/import', doc);
        assert.equal(answer.status, 400, `${what}: ${JSON.stringify(answer.body)}`);
        assertCommonBody(answer.body, 400);
      }
      const notJson = await app.inject({
        method: 'POST',
        url: '/api/objects/import',
        headers: { authorization: adminAuth, 'content-type': 'application/json' },
        payload: '{"metadata":',
      });
      assert.equal(notJson.statusCode, 400);
      for (const query of ['policy=sometimes', 'dryRun=maybe']) {
        const answer = await call(app, 'POST', `/api/objects/import?${query}`, document);
        assert.equal(answer.status, 400, query);
      }
      for (const query of ['type=studio', 'type=planet&id=x', 'app=shop&type=studio&id=acme', 'app=../x']) {
        const answer = await call(app, 'GET', `/api/objects/export?${query}`);
        assert.equal(answer.status, 400, `${query}: ${JSON.stringify(answer.body)}`);
        assertCommonBody(answer.body, 400);
      }
      const absent = await call(app, 'GET', '/api/objects/export?type=studio&id=nobody');
      assert.equal(absent.status, 404);
      assert.equal((await call(app, 'GET', '/api/apps/web/objects/export?app=shop')).status, 400);
      assert.deepEqual(await everything(app), before);
    });

    test('named objects export with the links among them', async (t) => {
      const { app } = await build(t, engine);
      await seedShop(app);
      const { document } = await exportOf(app, 'type=search-cluster&id=prod&type=typeahead&id=shop-en');
      assert.deepEqual(document.objects.studios, []);
      assert.deepEqual(document.objects.rules, []);
      assert.deepEqual(
        document.objects.searchClusters.map((c: Doc) => c.id),
        ['prod'],
      );
      // studio:acme is not exported, so its link to the cluster stays behind; collection:… travels.
      assert.deepEqual(
        document.objects.links.map((l: Doc) => `${l.subject} ${l.linkType} ${l.object}`),
        [
          'collection:products dependsOn search-cluster:prod',
          'search-cluster:prod inContextOf app:shop',
          'typeahead:shop-en inContextOf app:shop',
        ],
      );
    });
    test('query profiles travel with their app and links, never with their keys', async (t) => {
      const source = await build(t, engine);
      await seedShop(source.app);
      const { key } = await seedProfile(source.app);
      const { text, document } = await exportOf(source.app);
      assert.ok(!text.includes(key), 'a key is in the export');
      assert.ok(!text.includes(key.slice(-20)), 'a key is in the export');
      assert.deepEqual(document.objects.queryProfiles, [
        {
          app: 'shop',
          id: 'main',
          searchCluster: 'prod',
          collection: 'products',
          studio: 'acme',
          typeahead: 'shop-en',
          defaults: { rows: 10, qf: 'name^2 brand' },
          allowedParams: ['fq', 'sort'],
          logSearches: true,
          timeoutMs: 5000,
          display: { title: 'name', image: 'image_url' },
          allowedOrigins: [],
          signals: { userParam: 'user_id', sessionParam: 'session' },
        },
      ]);
      assert.ok(document.metadata.secretsOmitted.includes('query-profile:shop/main#keys'));
      const links = document.objects.links.map((l: Doc) => `${l.subject} ${l.linkType} ${l.object}`);
      for (const link of [
        'query-profile:shop/main inContextOf app:shop',
        'query-profile:shop/main dependsOn search-cluster:prod',
        'query-profile:shop/main dependsOn studio:acme',
        'query-profile:shop/main dependsOn typeahead:shop-en',
      ])
        assert.ok(links.includes(link), link);
      // Named by type and id: the profile, and the links among what is exported.
      const named = await exportOf(source.app, 'type=query-profile&id=shop/main&type=search-cluster&id=prod');
      assert.deepEqual(
        named.document.objects.queryProfiles.map((p: Doc) => p.id),
        ['main'],
      );
      assert.ok(
        named.document.objects.links.some(
          (l: Doc) => l.subject === 'query-profile:shop/main' && l.object === 'search-cluster:prod',
        ),
      );
      assert.equal(
        (await call(source.app, 'GET', '/api/objects/export?type=query-profile&id=shop/none')).status,
        404,
      );
      assert.equal(
        (await call(source.app, 'GET', '/api/objects/export?type=query-profile&id=main')).status,
        404,
      );

      const target = await build(t, engine);
      const imported = await call(target.app, 'POST', '/api/objects/import', document);
      assert.equal(imported.status, 200, JSON.stringify(imported.body));
      assert.ok(imported.body.created.includes('query-profile:shop/main'));
      assert.deepEqual(
        imported.body.needsSecret.filter((n: Doc) => n.object.startsWith('query-profile:')),
        [
          {
            object: 'query-profile:shop/main',
            secret: 'keys',
            how: 'POST /api/apps/shop/query-profiles/main/keys',
          },
        ],
      );
      assert.deepEqual((await call(target.app, 'GET', '/api/apps/shop/query-profiles/main/keys')).body, []);
      const again = await exportOf(target.app);
      assert.deepEqual(comparable(again.document), comparable(document));
      // The imported cluster is in the app's context: the profile takes a PUT as the admin gives it.
      const { app: _app, id: _id, ...body } = document.objects.queryProfiles[0];
      const put = await call(target.app, 'PUT', '/api/apps/shop/query-profiles/main', body);
      assert.equal(put.status, 200, JSON.stringify(put.body));

      // Abort: the profile is a conflict; merge leaves it; overwrite replaces it.
      const refused = await call(target.app, 'POST', '/api/objects/import', document);
      assert.equal(refused.status, 409);
      assert.ok(refused.body.details.conflicts.includes('query-profile:shop/main'));
      const changed = structuredClone(document);
      changed.objects.queryProfiles[0].collection = 'products_v2';
      const merged = await call(target.app, 'POST', '/api/objects/import?policy=merge', changed);
      assert.ok(merged.body.leftAlone.includes('query-profile:shop/main'));
      assert.equal(
        (await call(target.app, 'GET', '/api/apps/shop/query-profiles/main')).body.collection,
        'products',
      );
      const dry = await call(target.app, 'POST', '/api/objects/import?policy=overwrite&dryRun=true', changed);
      assert.ok(dry.body.updated.includes('query-profile:shop/main'));
      assert.equal(
        (await call(target.app, 'GET', '/api/apps/shop/query-profiles/main')).body.collection,
        'products',
      );
      const overwritten = await call(target.app, 'POST', '/api/objects/import?policy=overwrite', changed);
      assert.equal(overwritten.status, 200, JSON.stringify(overwritten.body));
      assert.ok(overwritten.body.updated.includes('query-profile:shop/main'));
      assert.equal(
        (await call(target.app, 'GET', '/api/apps/shop/query-profiles/main')).body.collection,
        'products_v2',
      );
      // A link naming a profile in no `{app}/{id}` spelling: the app's export is a 404, not a 5xx.
      const stray = { subject: 'query-profile:main', object: 'app:shop', linkType: 'inContextOf' };
      assert.equal((await call(target.app, 'PUT', '/api/links', stray)).status, 200);
      const broken = await call(target.app, 'GET', '/api/objects/export?app=shop');
      assert.equal(broken.status, 404, JSON.stringify(broken.body));
      assertCommonBody(broken.body, 404);
    });

    test('a query profile naming what is neither in the document nor present is a 400, nothing written', async (t) => {
      const source = await build(t, engine);
      await seedShop(source.app);
      await seedProfile(source.app);
      const { document } = await exportOf(source.app);
      const target = await build(t, engine);
      const before = await everything(target.app);
      for (const [what, breakIt] of [
        ['no cluster', (doc: Doc) => (doc.objects.searchClusters = [])],
        ['no studio', (doc: Doc) => (doc.objects.queryProfiles[0].studio = 'nobody')],
        ['no instance', (doc: Doc) => (doc.objects.queryProfiles[0].typeahead = 'nothing')],
        ['a forbidden parameter', (doc: Doc) => (doc.objects.queryProfiles[0].allowedParams = ['qt'])],
        ['a key', (doc: Doc) => (doc.objects.queryProfiles[0].keys = ['sdq_x'])],
        ['a profile twice', (doc: Doc) => doc.objects.queryProfiles.push(doc.objects.queryProfiles[0])],
      ] as const) {
        const doc = structuredClone(document);
        breakIt(doc);
        const answer = await call(target.app, 'POST', '/api/objects/import', doc);
        assert.equal(answer.status, 400, `${what}: ${JSON.stringify(answer.body)}`);
        assertCommonBody(answer.body, 400);
        assert.deepEqual(await everything(target.app), before, what);
      }
    });
  });
}
