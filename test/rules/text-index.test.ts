import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { Kysely } from 'kysely';
import { listRules } from '../../src/rules/listing.js';
import { deleteRule, insertRules, updateRule } from '../../src/rules/repository.js';
import type { Rule, RuleContent } from '../../src/rules/rule.js';
import { NEW_RULE_META } from '../../src/rules/rule-rows.js';
import type { ListingQuery } from '../../src/rules/schemas.js';
import { backfill } from '../../src/storage/migrations/0403_rule_text_search.js';
import type { Database } from '../../src/storage/schema.js';
import { createStudio } from '../../src/studios/service.js';
import { engines, freshStore, skipReason } from '../helpers/app.js';
import { content, minimalBodies } from './fixtures.js';
import { referenceListing } from './listing-reference.js';

// Pieces of text that exercise the words' folding: case, accents, ligatures, scripts,
// punctuation, quotes, and words longer than the index keeps (1,000 bytes).
const PIECES = [
  'laptop',
  'Laptops',
  'lap',
  'Écran',
  'ecr',
  'straße',
  'STRASSE',
  'ﬁlm',
  '日本語',
  '日本',
  'PROD-001',
  '4K/UHD',
  "O'Brien",
  '"quoted"',
  'back\\slash',
  'x1',
  'a',
  'z'.repeat(1_100),
  'é'.repeat(600),
];
const text = fc.array(fc.constantFrom(...PIECES), { maxLength: 4 }).map((pieces) => pieces.join(' '));
const name = fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 3 }).map((p) => p.join(' '));

const ruleContent = fc
  .record({
    name,
    description: text,
    tags: fc.array(fc.constantFrom('sale', 'Laptops', 'écran', 'tv'), { maxLength: 2 }),
    queries: fc.array(fc.constantFrom('lap top', 'straße', 'film'), { maxLength: 2 }),
    values: fc.uniqueArray(fc.constantFrom('P1', 'P2', 'PROD-7', 'x10'), { minLength: 1, maxLength: 2 }),
  })
  .map(({ name, description, tags, queries, values }) =>
    content({
      ...minimalBodies.blockList,
      name: name.slice(0, 200).trim() || 'x',
      description: description.slice(0, 2_000),
      tags,
      conditions: { queries },
      fieldValues: values,
    }),
  );

const storedRule = fc.record({
  staging: ruleContent,
  live: fc.option(ruleContent, { nil: null }),
  studio: fc.constantFrom(0, 0, 1),
});

/** A search: pieces of the texts above, cut to prefixes now and then. */
const searchQuery = fc
  .array(fc.tuple(fc.constantFrom(...PIECES), fc.nat(8)), { minLength: 1, maxLength: 3 })
  .map((parts) =>
    parts.map(([piece, cut]) => (cut === 0 ? piece.slice(0, 510) : piece.slice(0, cut))).join(' '),
  )
  // A search has at most 512 characters; 510 `é` still make a word over the index's 1,000 bytes.
  .filter((query) => /[\p{L}\p{N}]/u.test(query) && [...query].length <= 512);

function ruleOf(studioId: string, staging: RuleContent, live: RuleContent | null): Rule {
  const now = new Date().toISOString();
  return {
    id: randomUUID(),
    studioId,
    externalId: null,
    contentType: 'RULE',
    migratedId: null,
    staging,
    live,
    createdBy: 'client:ci',
    creationDate: now,
    lastModifiedBy: 'client:ci',
    lastModified: now,
  };
}

/** Every page of a listing, in order, with the totals each page reported. */
async function allPages(db: Kysely<Database>, studioId: string, query: ListingQuery, size: number) {
  const ids: string[] = [];
  const totals = new Set<number>();
  for (let page = 0; page < 50; page++) {
    const answer = await listRules(db, studioId, { ...query, page, size });
    totals.add(answer.page.totalElements);
    ids.push(...answer.content.map((rule) => rule.id));
    if (answer.content.length < size) break;
  }
  return { ids, totals: [...totals] };
}

for (const engine of engines) {
  describe(`rules text search on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('finds exactly the rules the word matcher finds, by default sort and by relevance, as rules change', async (t) => {
      const fresh = await freshStore(engine);
      t.after(() => fresh.close());
      const { db } = fresh.store;
      await fc.assert(
        fc.asyncProperty(
          fc.array(storedRule, { maxLength: 20 }),
          fc.array(searchQuery, { minLength: 1, maxLength: 4 }),
          fc.array(fc.tuple(fc.nat(), ruleContent, fc.boolean()), { maxLength: 3 }),
          fc.integer({ min: 1, max: 6 }),
          async (drawn, queries, edits, size) => {
            const studios = [`s${randomUUID().slice(0, 8)}`, `t${randomUUID().slice(0, 8)}`];
            for (const id of studios) await createStudio(db, { id, name: id }, new Date());
            const rules = drawn.map((r) => ruleOf(studios[r.studio]!, r.staging, r.live));
            await insertRules(
              db,
              rules.map((rule) => ({ rule, meta: { ...NEW_RULE_META } })),
            );
            // Edits and removals after the first write: the index follows the rule.
            for (const [pick, staging, remove] of edits) {
              const rule = rules[pick % Math.max(rules.length, 1)];
              if (!rule) break;
              const index = rules.indexOf(rule);
              if (remove) {
                await deleteRule(db, rule.id);
                rules.splice(index, 1);
              } else {
                const changed = {
                  ...rule,
                  staging,
                  lastModified: new Date(Date.now() + index).toISOString(),
                };
                assert.equal(
                  await updateRule(db, { rule: changed, meta: NEW_RULE_META }, rule.lastModified),
                  true,
                );
                rules[index] = changed;
              }
            }
            const studioId = studios[0]!;
            const own = rules.filter((rule) => rule.studioId === studioId);
            for (const searchQuery of queries) {
              const expected = referenceListing(own, { searchQuery });
              const listed = await allPages(db, studioId, { searchQuery }, size);
              assert.deepEqual(listed.ids, expected, `searchQuery ${JSON.stringify(searchQuery)}`);
              assert.deepEqual(listed.totals, [expected.length]);
              const ranked = await allPages(
                db,
                studioId,
                { searchQuery, sort: ['textSearchRelevance'] },
                size,
              );
              assert.deepEqual(
                [...ranked.ids].sort(),
                [...expected].sort(),
                'relevance finds the same rules',
              );
              assert.equal(new Set(ranked.ids).size, ranked.ids.length, 'no rule on two pages');
              assert.deepEqual(ranked.totals, [expected.length]);
            }
          },
        ),
        { numRuns: 40 },
      );
    });

    test('ranks a match in the name above a match in the description, ties by id', async (t) => {
      const fresh = await freshStore(engine);
      t.after(() => fresh.close());
      const { db } = fresh.store;
      await createStudio(db, { id: 'shop', name: 'shop' }, new Date());
      const inName = ruleOf('shop', content({ ...minimalBodies.blockList, name: 'Gaming laptops' }), null);
      const inDescription = ruleOf(
        'shop',
        content({ ...minimalBodies.blockList, name: 'Gaming', description: 'laptops' }),
        null,
      );
      const twins = [1, 2].map(() =>
        ruleOf('shop', content({ ...minimalBodies.blockList, name: 'Other', description: 'laptops' }), null),
      );
      await insertRules(
        db,
        [inDescription, ...twins, inName].map((rule) => ({ rule, meta: NEW_RULE_META })),
      );
      const answer = await listRules(db, 'shop', { searchQuery: 'lapt', sort: ['textSearchRelevance'] });
      const ids = answer.content.map((rule) => rule.id);
      assert.equal(ids[0], inName.id);
      const twinIds = twins.map((rule) => rule.id).sort();
      assert.deepEqual(
        ids.filter((id) => twinIds.includes(id)),
        twinIds,
      );
    });
  });
}

for (const engine of engines) {
  describe(`the text index migration on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('fills the index and the counts from the rules already stored', async (t) => {
      const fresh = await freshStore(engine);
      t.after(() => fresh.close());
      const { db } = fresh.store;
      await createStudio(db, { id: 'shop', name: 'shop' }, new Date());
      const staging = content({ ...minimalBodies.blockList, name: 'Gaming laptops', description: 'Écrans' });
      const live = content({ ...minimalBodies.blockList, name: 'Old name', description: 'straße' });
      const rules = [ruleOf('shop', staging, live), ruleOf('shop', live, null)];
      await insertRules(
        db,
        rules.map((rule) => ({ rule, meta: NEW_RULE_META })),
      );
      // As before the migration: rules without index entries or counts.
      await db.deleteFrom('rule_search').execute();
      await db.deleteFrom('rule_count').execute();
      assert.equal((await listRules(db, 'shop', { searchQuery: 'stras' })).page.totalElements, 0);

      await backfill(db);
      const found = async (searchQuery: string) =>
        (await listRules(db, 'shop', { searchQuery })).content.map((rule) => rule.id).sort();
      assert.deepEqual(await found('stras'), rules.map((rule) => rule.id).sort());
      assert.deepEqual(await found('ecran lapt'), [rules[0]!.id]);
      assert.equal((await listRules(db, 'shop', {})).page.totalElements, 2);
    });
  });
}
