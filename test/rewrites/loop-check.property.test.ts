import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { LoopCheck, LoopCheckLimitError, MAX_LOOP_CHECK_WORK } from '../../src/rewrites/loop-check.js';
import { findRewriteCycle, type IdentifiedRewrite } from '../../src/rewrites/loops.js';
import { type RewriteContent, rewriteContent } from './arbitraries.js';

// Terms of one to three words from few, spelt in ways that share a term key, so that nodes,
// two-way sets, removed words and overlaps between parts of queries meet often.
const word = fc.constantFrom('a', 'A', 'b', 'c', 'd');

type Content = RewriteContent;
const content = rewriteContent(word, { twoWaySynonyms: 2, removeWords: 2 });
// Few ids, so that publishes often replace a live rewrite's content.
const id: fc.Arbitrary<string> = fc.constantFrom('r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7');
const step = fc.oneof(
  { weight: 5, arbitrary: fc.record({ publish: id, content }) },
  { weight: 1, arbitrary: fc.record({ remove: id }) },
);

const identified = (key: string, body: Content) => ({ ...body, id: key }) as IdentifiedRewrite;

describe('the incremental loop check', () => {
  test('refuses exactly the publishes the whole-set check refuses, naming a real loop', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(id, content), { maxLength: 5 }),
        fc.array(step, { minLength: 1, maxLength: 10 }),
        async (stored, steps) => {
          // The live set as stored, which may loop already (stored before a rule of the check).
          const live = new Map(stored.map(([key, body]) => [key, identified(key, body)]));
          const check = await LoopCheck.of([...live.values()]);
          for (const next of steps) {
            if ('remove' in next) {
              live.delete(next.remove);
              check.remove(next.remove);
              continue;
            }
            const rewrite = identified(next.publish, next.content);
            const after = new Map(live).set(rewrite.id, rewrite);
            const expected = findRewriteCycle([...after.values()]);
            const found = await check.loopWith(rewrite.id, rewrite);
            const context = JSON.stringify({ stored, steps, next, found, expected });
            assert.equal(found !== undefined, expected !== undefined, context);
            if (!found) {
              live.set(rewrite.id, rewrite);
              continue;
            }
            // The rewrites named loop on their own, with the sets that join or remove words.
            const named = [...after.values()].filter(
              (r) =>
                found.ids.includes(r.id) ||
                r.type === 'removeWords' ||
                (r.type === 'synonym' && r.input == null),
            );
            assert.ok(findRewriteCycle(named), context);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  test('works in proportion to what a bulk publishes, not to the set times the bulk', async () => {
    // The reported shape: misspellings of 60 one-letter words, corrected to words of their own.
    const letters = 'abcdefghijklmnopqrstuvwxyz0123456789';
    const misspellings = (count: number, from: number) =>
      Array.from({ length: count }, (_, i) => ({
        type: 'misspelling' as const,
        misspelling: Array.from({ length: 60 }, (_, w) => letters[(w * 7 + (from + i) * 13) % 36]).join(' '),
        correction: `fixed${from + i}`,
        id: `m${from + i}`,
      }));
    const publishAll = async (check: LoopCheck, rewrites: IdentifiedRewrite[]) => {
      const before = check.work;
      for (const rewrite of rewrites) assert.equal(await check.loopWith(rewrite.id, rewrite), undefined);
      return check.work - before;
    };
    const check = await LoopCheck.of([]);
    const first = await publishAll(check, misspellings(50, 0));
    const second = await publishAll(check, misspellings(50, 50));
    // The second fifty cost what the first did, though the set holds twice as many (before,
    // each publish indexed the whole set again: the second fifty cost three times as much).
    assert.ok(second < first * 1.2, `${first} steps, then ${second}`);

    // Into a studio that holds them already, the next ones cost the same again.
    const stored = await LoopCheck.of(misspellings(100, 0));
    assert.equal(stored.work, 0, 'reading the live set in is not counted');
    const more = await publishAll(stored, misspellings(50, 100));
    assert.ok(more < first * 1.2, `${first} steps, then ${more} into a studio of 100`);
  });

  test('refuses a request whose publishes pass the bound, early', async () => {
    const letters = 'abcdefghijklmnopqrstuvwxyz0123456789';
    const check = await LoopCheck.of([]);
    let published = 0;
    await assert.rejects(async () => {
      for (let i = 0; i < 1000; i++) {
        const misspelling = Array.from({ length: 60 }, (_, w) => letters[(w * 5 + i) % 36]).join(' ');
        await check.loopWith(`m${i}`, { type: 'misspelling', misspelling, correction: `x${i}`, id: `m${i}` });
        published += 1;
      }
    }, LoopCheckLimitError);
    assert.ok(check.work <= MAX_LOOP_CHECK_WORK + 5_000, `${check.work} steps before the refusal`);
    assert.ok(published > 50 && published < 1000, `${published} publishes checked before the refusal`);
  });
});
