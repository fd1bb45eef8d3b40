// Random rewrites of every type for the property tests of loops: terms of one to three of the
// given words, so rewrites often write words another rewrite matches.
import fc from 'fast-check';
import type { IdentifiedRewrite } from '../../src/rewrites/loops.js';

export type RewriteContent = Omit<IdentifiedRewrite, 'id'>;

/** How often each shape comes, relative to the others. */
export interface RewriteWeights {
  twoWaySynonyms: number;
  removeWords: number;
}

export function rewriteContent(
  word: fc.Arbitrary<string>,
  weights: RewriteWeights = { twoWaySynonyms: 1, removeWords: 1 },
): fc.Arbitrary<RewriteContent> {
  const term = fc.array(word, { minLength: 1, maxLength: 3 }).map((words) => words.join(' '));
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        type: fc.constant('misspelling' as const),
        misspelling: term,
        correction: term,
      }),
    },
    { weight: 2, arbitrary: fc.record({ type: fc.constant('headTail' as const), query: term, head: term }) },
    {
      weight: 1,
      arbitrary: fc.record({
        type: fc.constant('synonym' as const),
        input: term,
        synonyms: fc.array(term, { minLength: 1, maxLength: 2 }),
      }),
    },
    {
      weight: weights.twoWaySynonyms,
      arbitrary: fc.record({
        type: fc.constant('synonym' as const),
        synonyms: fc.array(term, { minLength: 2, maxLength: 3 }),
      }),
    },
    { weight: 1, arbitrary: fc.record({ type: fc.constant('phrase' as const), phrase: term }) },
    {
      weight: weights.removeWords,
      arbitrary: fc.record({
        type: fc.constant('removeWords' as const),
        words: fc.array(word, { minLength: 1, maxLength: 2 }),
      }),
    },
  );
}
