// Links are imported a chunk at a time (issue 26): these documents hold more links than two
// chunks, so what must hold for the whole document is seen across chunk boundaries.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { KyselyPlugin } from 'kysely';
import { LINK_INSERT_CHUNK } from '../../src/links/repository.js';
import { importObjects } from '../../src/objects/import.js';
import { SecretBox } from '../../src/security/secret-box.js';
import { call } from '../helpers/api.js';
import { build, engines, skipReason } from '../helpers/app.js';

const LINKS = 2 * LINK_INSERT_CHUNK + 1;

interface LinkItem {
  subject: string;
  object: string;
  linkType: string;
}

/** A search cluster and LINKS links: collection:c{i} dependsOn the cluster. */
function document(links: LinkItem[] = collections(LINKS)) {
  return {
    metadata: { exportedAt: new Date().toISOString(), version: 1, secretsOmitted: [] },
    objects: {
      searchClusters: [{ id: 'prod', connectString: 'http://127.0.0.1:1/solr', cloud: false }],
      queryProfiles: [],
      studios: [],
      rules: [],
      rewrites: [],
      typeaheadInstances: [],
      links,
    },
  };
}

function collections(count: number): LinkItem[] {
  return Array.from({ length: count }, (_, i) => ({
    subject: `collection:c${i}`,
    object: 'search-cluster:prod',
    linkType: 'dependsOn',
  }));
}

/** How many links the instance holds. */
async function storedLinks(app: FastifyInstance): Promise<number> {
  const listed = await call(app, 'GET', `/api/links?limit=${LINKS + 10}`);
  assert.equal(listed.status, 200, JSON.stringify(listed.body));
  return listed.body.length;
}

for (const engine of engines) {
  describe(`links imported a chunk at a time on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('an import of more links than two chunks runs a few statements per chunk, not per link', async (t) => {
      const { app, store } = await build(t, engine);
      let statements = 0;
      const counter: KyselyPlugin = {
        transformQuery(args) {
          statements++;
          return args.node;
        },
        async transformResult(args) {
          return args.result;
        },
      };
      const deps = {
        box: new SecretBox(Buffer.alloc(32, 7)),
        typeahead: app.parts.typeahead,
        wakeDeliveries() {},
        now: () => new Date(),
      };
      const report = await importObjects(store.db.withPlugin(counter), deps, document() as never, {
        policy: 'abort',
        dryRun: false,
      });
      assert.equal(report.counts.created, LINKS + 1);
      // Before issue 26 each link cost up to six statements (its ends, both directions, insert, read back).
      assert.ok(statements < 30, `${statements} statements for ${LINKS} links`);
      assert.equal(await storedLinks(app), LINKS);
    });

    test('a link repeated in its reverse spelling in the last chunk is created once, then left alone', async (t) => {
      const { app } = await build(t, engine);
      const links = [
        ...collections(LINKS - 1),
        { subject: 'search-cluster:prod', object: 'collection:c0', linkType: 'supports' },
      ];
      const imported = await call(app, 'POST', '/api/objects/import', document(links));
      assert.equal(imported.status, 200, JSON.stringify(imported.body));
      assert.deepEqual(imported.body.counts, { created: LINKS, updated: 0, leftAlone: 1 });
      assert.deepEqual(imported.body.leftAlone, ['link:search-cluster:prod supports collection:c0']);
      assert.equal(imported.body.created[1], 'link:collection:c0 dependsOn search-cluster:prod');
      assert.equal(await storedLinks(app), LINKS - 1);
      // Again under merge: the cluster and every link exist, in whichever spelling the document has.
      const again = await call(app, 'POST', '/api/objects/import?policy=merge', document(links));
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.deepEqual(again.body.counts, { created: 0, updated: 0, leftAlone: LINKS + 1 });
    });

    test('a dry run of more than two chunks answers the import and writes nothing', async (t) => {
      const { app } = await build(t, engine);
      const dry = await call(app, 'POST', '/api/objects/import?dryRun=true', document());
      assert.equal(dry.status, 200, JSON.stringify(dry.body));
      assert.deepEqual(dry.body.counts, { created: LINKS + 1, updated: 0, leftAlone: 0 });
      assert.equal(dry.body.namesTruncated, true);
      assert.equal(await storedLinks(app), 0);
      assert.equal((await call(app, 'GET', '/api/searchCluster/prod')).status, 404);
    });

    test('a refused link in the last chunk writes nothing of the chunks before it', async (t) => {
      const { app } = await build(t, engine);
      const missingEnd = [
        ...collections(LINKS - 1),
        { subject: 'collection:last', object: 'studio:nowhere', linkType: 'dependsOn' },
      ];
      const refused = await call(app, 'POST', '/api/objects/import', document(missingEnd));
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.equal(refused.body.code, 'invalid-body');
      assert.match(JSON.stringify(refused.body.errors), /studio:nowhere/);
      const badSelf = [
        ...collections(LINKS - 1),
        { subject: 'collection:c1', object: 'collection:c2', linkType: 'self' },
      ];
      const invalid = await call(app, 'POST', '/api/objects/import', document(badSelf));
      assert.equal(invalid.status, 400, JSON.stringify(invalid.body));
      assert.equal(invalid.body.code, 'invalid-body');
      assert.equal(await storedLinks(app), 0);
      assert.equal((await call(app, 'GET', '/api/searchCluster/prod')).status, 404);
    });
  });
}
