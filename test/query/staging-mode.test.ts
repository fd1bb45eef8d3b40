// The query endpoint's staging mode against the run's real SolrCloud (test/helpers/solr.ts):
// `staging=true` answers what the studio's staging rules (drafts included) do to Solr's
// results, for a user who may change the studio; shoppers (search-only keys) keep the live
// rules and cannot ask for staging; `fusion.effect` names the rule behind each pin and block.
import assert from 'node:assert/strict';
import { before, describe, type TestContext, test } from 'node:test';
import type { Engine } from '../../src/storage/database.js';
import { type Answer, call } from '../helpers/api.js';
import { ADMIN_PASSWORD, adminAuth, build, contractTest, engines, skipReason } from '../helpers/app.js';
import { solrSkipReason, type TestSolr, testSolr } from '../helpers/solr.js';
import { createRule, publishedRule, studioWithToken } from '../rules/api.js';
import { basic, createUser, PASSWORD, signIn } from '../users/helpers.js';
import { shopOnTestSolr } from './solr-shop.js';

const APP = 'shop';
// Solr echoes every parameter it received, so the test sees what was sent.
const DEFAULTS = { rows: '10', fl: 'id,name,price', sort: 'score desc,id asc', echoParams: 'all' };

const idsOf = (answer: Answer): string[] =>
  (answer.body as { response: { docs: Array<{ id: string }> } }).response.docs.map((d) => d.id);

for (const engine of engines) {
  describe(`Staging mode of the query endpoint against the real SolrCloud on ${engine}`, {
    skip: (await skipReason(engine)) ?? solrSkipReason(),
  }, () => {
    const contract = contractTest(engine);
    let solr: TestSolr;
    before(async () => {
      solr = await testSolr();
    });

    /** An app on the run's SolrCloud, studio `studio1` with a token, profile `web` and its key. */
    async function setUp(t: TestContext, on: Engine) {
      const { app } = await build(t, on);
      const { access, key } = await shopOnTestSolr(app, solr, {
        defaults: DEFAULTS,
        allowedParams: ['rows', 'staging'],
      });
      const query = (search: string, authorization: string) =>
        call(app, 'GET', `/api/apps/${APP}/query/web?${search}`, undefined, authorization);
      return { app, access, query, shopper: `Bearer ${key}` };
    }

    test("staging=true answers the staging rules' effect; shoppers keep the live one", async (t) => {
      const { app, access, query, shopper } = await setUp(t, engine);
      const base = await query('q=kettle&rows=20', shopper);
      assert.equal(base.status, 200, JSON.stringify(base.body));
      const kettles = idsOf(base);
      assert.equal(kettles.length, 20);
      const onKettle = { conditions: { queries: ['kettle'] } };
      const live = await publishedRule(app, access, {
        type: 'blockList',
        name: 'Block a kettle',
        fieldName: 'id',
        fieldValues: [kettles[1]],
        ...onKettle,
      });
      const pin = await createRule(app, access, {
        type: 'pinned',
        name: 'Pin a kettle',
        pinnedValues: [{ value: kettles[6], position: 1 }],
        ...onKettle,
      });
      const block = await createRule(app, access, {
        type: 'blockList',
        name: 'Block another kettle',
        fieldName: 'id',
        fieldValues: [kettles[0]],
        ...onKettle,
      });

      const withoutLive = kettles.filter((id) => id !== kettles[1]).slice(0, 10);
      // Shoppers, and users who do not ask for staging, get the live rule only.
      for (const [who, authorization] of [
        ['a search-only key', shopper],
        ['the admin', adminAuth],
      ]) {
        const answer = await query('q=kettle', authorization!);
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.deepEqual(idsOf(answer), withoutLive, who);
        assert.equal(answer.body.fusion.staging, false);
        assert.deepEqual(answer.body.fusion.effect, {
          pins: [],
          boosts: [],
          buries: [],
          blocked: [{ fieldName: 'id', value: kettles[1], rule: live.id }],
          filters: [],
          queryBoosts: [],
          params: [],
        });
      }

      // The staging content: the published rule's and both drafts, on the real Solr.
      const expected = [
        kettles[6]!,
        ...kettles.filter((id) => ![kettles[0], kettles[1], kettles[6]].includes(id)),
      ];
      const staging = await query('q=kettle&staging=true', adminAuth);
      assert.equal(staging.status, 200, JSON.stringify(staging.body));
      assert.deepEqual(idsOf(staging), expected.slice(0, 10));
      const { fusion } = staging.body;
      assert.equal(fusion.staging, true);
      assert.deepEqual(fusion.rules.map((r: { name: string }) => r.name).sort(), [
        'Block a kettle',
        'Block another kettle',
        'Pin a kettle',
      ]);
      assert.deepEqual(fusion.effect.pins, [{ value: kettles[6], position: 1, rule: pin.id }]);
      assert.deepEqual(
        [...fusion.effect.blocked].sort((a: { value: string }, b: { value: string }) =>
          a.value.localeCompare(b.value),
        ),
        [
          { fieldName: 'id', value: kettles[0], rule: block.id },
          { fieldName: 'id', value: kettles[1], rule: live.id },
        ].sort((a, b) => a.value!.localeCompare(b.value!)),
      );
      // `staging` is the endpoint's own, even where the profile allows it: Solr never gets it.
      const echoed = staging.body.responseHeader.params as Record<string, unknown>;
      assert.equal(echoed.q, 'kettle');
      assert.equal(echoed.staging, undefined);

      // The console's way: a signed-in admin's session.
      const session = await signIn(app, 'admin', ADMIN_PASSWORD);
      const viaSession = await app.inject({
        url: `/api/apps/${APP}/query/web?q=kettle&staging=true`,
        headers: { cookie: session.cookie },
      });
      assert.equal(viaSession.statusCode, 200, viaSession.body);
      assert.deepEqual(
        viaSession.json().response.docs.map((d: { id: string }) => d.id),
        expected.slice(0, 10),
      );

      // Published, the drafts are what shoppers get.
      for (const rule of [pin, block]) {
        const published = await app.inject({
          method: 'POST',
          url: `/em-rules/${rule.id}/publish`,
          headers: access.headers,
        });
        assert.equal(published.statusCode, 200, published.body);
      }
      assert.deepEqual(idsOf(await query('q=kettle', shopper)), expected.slice(0, 10));
    });

    contract(
      'staging is for users who may change the studio: never a key, a viewer or another studio',
      async (t) => {
        const { app, query, shopper } = await setUp(t, engine);
        await studioWithToken(app, 'studio2');
        await createUser(app, 'mira', 'merchandiser', { studios: ['studio1'] });
        await createUser(app, 'otto', 'merchandiser', { studios: ['studio2'] });
        await createUser(app, 'vic', 'viewer');
        const refused = await query('q=kettle&staging=true', shopper);
        assert.equal(refused.status, 403, JSON.stringify(refused.body));
        assert.equal(refused.body.code, 'forbidden');
        assert.match(refused.body.message, /search-only key/);
        assert.equal((await query('q=kettle&staging=false', shopper)).status, 200);
        assert.equal((await query('q=kettle&staging=true', basic('mira', PASSWORD))).status, 200);
        for (const user of ['otto', 'vic']) {
          const answer = await query('q=kettle&staging=true', basic(user, PASSWORD));
          assert.equal(answer.status, 403, `${user}: ${JSON.stringify(answer.body)}`);
          assert.equal(answer.body.code, 'forbidden');
          assert.equal((await query('q=kettle', basic(user, PASSWORD))).status, 200, user);
        }
        for (const search of ['q=kettle&staging=yes', 'q=kettle&staging=true&staging=true']) {
          const bad = await query(search, adminAuth);
          assert.equal(bad.status, 400, search);
          assert.equal(bad.body.code, 'invalid-parameter');
          assert.deepEqual(
            bad.body.errors.map((e: { field: string }) => e.field),
            ['staging'],
          );
        }
      },
    );
  });
}
