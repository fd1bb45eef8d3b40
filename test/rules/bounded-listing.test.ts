import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { listRules } from '../../src/rules/listing.js';
import { MAX_SEARCH_CHARACTERS, MAX_SEARCH_WORDS } from '../../src/rules/listing-params.js';
import { MAX_CONFLICTS_PER_RULE } from '../../src/rules/page-conflicts.js';
import { createStudio } from '../../src/studios/service.js';
import { build, contractTest, engines, skipReason } from '../helpers/app.js';
import { type RuleJson, studioWithToken } from './api.js';
import { content, minimalBodies } from './fixtures.js';
import { referenceListing } from './listing-reference.js';
import { seedRules } from './seed.js';

const WORDS = Array.from({ length: 40 }, (_, i) => `w${i.toString(36)}ord`);

for (const engine of engines) {
  describe(`bounded rules listing on ${engine}`, { skip: await skipReason(engine) }, () => {
    const contract = contractTest(engine);
    contract('answers 400 naming the limit for a searchQuery over 32 words or 512 characters', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const get = (searchQuery: string) =>
        app.inject({
          url: `/em-rules?searchQuery=${encodeURIComponent(searchQuery)}&sort=textSearchRelevance`,
          headers: access.headers,
        });
      const tooMany = await get(WORDS.slice(0, MAX_SEARCH_WORDS + 1).join(' '));
      assert.equal(tooMany.statusCode, 400);
      assert.equal(tooMany.json().code, 'invalid-parameter');
      assert.deepEqual(tooMany.json().errors, [
        { field: 'searchQuery', message: 'searchQuery must have at most 32 words' },
      ]);
      const tooLong = await get('a'.repeat(MAX_SEARCH_CHARACTERS + 1));
      assert.equal(tooLong.statusCode, 400);
      assert.deepEqual(tooLong.json().errors, [
        { field: 'searchQuery', message: 'searchQuery must have at most 512 characters' },
      ]);
      // Characters, not UTF-16 units or bytes: 512 letters outside the BMP are within the limit.
      assert.equal((await get('𝒜'.repeat(MAX_SEARCH_CHARACTERS))).statusCode, 200);
      assert.equal((await get(WORDS.slice(0, MAX_SEARCH_WORDS).join(' '))).statusCode, 200);
    });

    test('finds the rules having all of 32 search words quickly, by filter and by relevance', async (t) => {
      const { app, store } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      // Every rule has 30 of the 40 words; a query of 32 words matches none, of the first 30 one in four.
      const rules = await seedRules(
        store.db,
        'shop',
        Array.from({ length: 200 }, (_, i) =>
          content({
            ...minimalBodies.blockList,
            name: `Rule ${i}`,
            description: WORDS.slice(i % 4 === 0 ? 0 : 10, (i % 4 === 0 ? 0 : 10) + 30).join(' '),
          }),
        ),
      );
      for (const words of [WORDS.slice(0, MAX_SEARCH_WORDS), WORDS.slice(0, 30)]) {
        // Prefixes as a user types them: each matches a range of words.
        const searchQuery = words.map((word) => word.slice(0, 3)).join(' ');
        const expected = referenceListing(rules, { searchQuery, size: '1000' });
        for (const sort of ['', '&sort=textSearchRelevance']) {
          const started = performance.now();
          const response = await app.inject({
            url: `/em-rules?searchQuery=${encodeURIComponent(searchQuery)}&size=1000${sort}`,
            headers: access.headers,
          });
          const ms = performance.now() - started;
          assert.equal(response.statusCode, 200, response.body);
          const ids = response.json().content.map((rule: RuleJson) => rule.id);
          assert.deepEqual([...ids].sort(), [...expected].sort());
          assert.equal(response.json().page.totalElements, expected.length);
          t.diagnostic(`${words.length} words${sort}: ${expected.length} rules in ${ms.toFixed(1)} ms`);
          // A guard against runaway statements (500 words once ran for minutes on PostgreSQL),
          // generous enough for a loaded CI machine; speed itself is measured by the bench.
          assert.ok(ms < 1500, `${words.length} words took ${ms.toFixed(0)} ms`);
        }
      }
    });

    test('lists at most 20 conflicts per rule and says when it left some out', async (t) => {
      const { app, store } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const boosts = MAX_CONFLICTS_PER_RULE + 5;
      const [block] = await seedRules(store.db, 'shop', [
        content({ ...minimalBodies.blockList, name: 'Block P1' }),
        ...Array.from({ length: boosts }, (_, i) =>
          content({ ...minimalBodies.boostList, name: `Boost ${i}` }),
        ),
        content({ ...minimalBodies.banner, name: 'Banner' }),
      ]);
      const response = await app.inject({
        url: '/em-rules?fields=CONFLICTS&size=100',
        headers: access.headers,
      });
      assert.equal(response.statusCode, 200, response.body);
      const listed = response.json().content as RuleJson[];
      const byName = new Map(listed.map((rule) => [rule.name, rule]));
      const blocker = byName.get('Block P1')!;
      assert.equal((blocker.conflicts as unknown[]).length, MAX_CONFLICTS_PER_RULE);
      assert.equal(blocker.conflictsTruncated, true);
      const boost = byName.get('Boost 0')!;
      assert.deepEqual(
        (boost.conflicts as Array<{ id: string }>).map((c) => c.id),
        [block!.id],
      );
      assert.equal(boost.conflictsTruncated, false);
      assert.deepEqual(byName.get('Banner')!.conflicts, []);
      assert.equal(byName.get('Banner')!.conflictsTruncated, false);
      // Without CONFLICTS neither field is answered.
      const plain = await app.inject({ url: '/em-rules?size=1', headers: access.headers });
      assert.equal('conflictsTruncated' in plain.json().content[0], false);
    });

    test('computes the conflicts of a page with a few statements, not one per rule', async (t) => {
      const { store } = await build(t, engine);
      await createStudio(store.db, { id: 'shop', name: 'Shop' }, new Date());
      // 60 pairs of rules, each pair boosting and burying its own document.
      await seedRules(
        store.db,
        'shop',
        Array.from({ length: 60 }, (_, i) => [
          content({ ...minimalBodies.boostList, name: `Boost ${i}`, fieldValues: [`P${i}`] }),
          content({ ...minimalBodies.buryList, name: `Bury ${i}`, fieldValues: [`P${i}`] }),
        ]).flat(),
      );
      let statements = 0;
      // Counted as they answer: a plugin sees nested queries as they are built too.
      const counting = store.db.withPlugin({
        transformQuery: (args) => args.node,
        transformResult: async (args) => {
          statements += 1;
          return args.result;
        },
      });
      const page = await listRules(counting, 'shop', { fields: ['CONFLICTS'], size: 120 });
      assert.equal(page.content.length, 120);
      for (const rule of page.content) assert.equal(rule.conflicts?.length, 1);
      assert.ok(statements <= 6, `${statements} statements for a page of 120 rules`);
    });
  });
}
