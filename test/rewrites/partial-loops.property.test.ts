import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { CompiledRewrites } from '../../src/evaluation/rewriting.js';
import { findRewriteCycle, type IdentifiedRewrite, OverlapIndex } from '../../src/rewrites/loops.js';
import type { LiveRewrite } from '../../src/rewrites/rewrite.js';
import { rewriteContent } from './arbitraries.js';

// Terms of one to three words from four, so rewrites often write words another rewrite
// matches as part of a longer query, or a longer query holding them.
const word = fc.constantFrom('a', 'b', 'c', 'd');

const rewrite = rewriteContent(word);
const rewriteSet = fc
  .array(rewrite, { minLength: 1, maxLength: 6 })
  .map((set) => set.map((content, index) => ({ ...content, id: `r${index}` }) as IdentifiedRewrite));
const query = fc.array(word, { minLength: 1, maxLength: 6 });

// Far more rounds than a loop-free set of six rewrites needs to settle on a six-word query.
const ROUNDS = 100;
const NOW = Date.parse('2026-01-01T00:00:00Z');

/** The query evaluation gives, evaluated again until it no longer changes; undefined if it never settles. */
function settled(rewrites: CompiledRewrites, words: string[]): string[] | undefined {
  let current = words;
  for (let round = 0; round < ROUNDS; round++) {
    const next = rewrites.apply(current, NOW).words;
    if (next.join(' ') === current.join(' ')) return current;
    // A query that grows past this has been rewritten into one holding itself.
    if (next.length > 100) return undefined;
    current = next;
  }
  return undefined;
}

describe('loops through parts of queries', () => {
  test('a rewrite set accepted at publish never rewrites a query back into one it rewrites again', () => {
    fc.assert(
      fc.property(rewriteSet, fc.array(query, { minLength: 1, maxLength: 5 }), (set, queries) => {
        fc.pre(findRewriteCycle(set) === undefined);
        const compiled = new CompiledRewrites(set as LiveRewrite[]);
        for (const words of queries) {
          assert.ok(settled(compiled, words), JSON.stringify({ set, words }));
        }
      }),
      { numRuns: 3000 },
    );
  });

  test('the overlap index finds exactly the word sequences that overlap, or lie within', () => {
    const words = fc.array(word, { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(fc.array(words, { maxLength: 8 }), words, fc.boolean(), (indexed, written, within) => {
        const index = new OverlapIndex();
        for (const [id, sequence] of indexed.entries()) index.add(sequence, id);
        const found = new Set<number>();
        index.find(written, within, found);
        const expected = indexed.flatMap((sequence, id) =>
          (within ? contains(written, sequence) : overlapsByDefinition(written, sequence)) ? [id] : [],
        );
        assert.deepEqual([...found].sort(), expected.sort());
      }),
      { numRuns: 2000 },
    );
  });

  test('refuses a rewrite that writes what it matches, inside a longer term', () => {
    const tv: IdentifiedRewrite[] = [
      { type: 'misspelling', misspelling: 'tv', correction: 'tv stand', id: '1' },
    ];
    assert.deepEqual(findRewriteCycle(tv), { terms: ['tv', 'tv stand', 'tv'], ids: ['1'] });
  });

  test('refuses a loop through part of a query, across kinds', () => {
    const set: IdentifiedRewrite[] = [
      { type: 'headTail', query: 'lapotp bag', head: 'laptop bag', id: 'head' },
      { type: 'misspelling', misspelling: 'laptop', correction: 'lapotp', id: 'typo' },
    ];
    assert.deepEqual(findRewriteCycle(set), {
      terms: ['lapotp bag', 'laptop bag', 'laptop', 'lapotp', 'lapotp bag'],
      ids: ['head', 'typo'],
    });
  });

  test('refuses a loop that removed words close', () => {
    const set: IdentifiedRewrite[] = [
      { type: 'misspelling', misspelling: 'red shoe', correction: 'red big shoe', id: 'grow' },
      { type: 'removeWords', words: ['big'], id: 'drop' },
    ];
    assert.deepEqual(findRewriteCycle(set)?.ids, ['grow']);
    assert.equal(findRewriteCycle(set.slice(0, 1)), undefined, 'without the removal it settles');
  });

  test('accepts corrections that keep some of the words they match, and one-way synonyms that extend a term', () => {
    const set: IdentifiedRewrite[] = [
      { type: 'misspelling', misspelling: 'red shoe', correction: 'red shoes', id: '1' },
      { type: 'headTail', query: 'red nike running shoes', head: 'running shoes', id: '2' },
      { type: 'synonym', input: 'phone', synonyms: ['cell phone'], id: '3' },
      { type: 'synonym', synonyms: ['tv', 'tv set', 'television'], id: '4' },
    ];
    assert.equal(findRewriteCycle(set), undefined);
  });
});

/** Whether `inner` is a stretch of `outer`. */
function contains(outer: string[], inner: string[]): boolean {
  return outer.some((_, at) => inner.every((w, i) => outer[at + i] === w));
}

/** One holds the other, or a proper end of one is the other's beginning. */
function overlapsByDefinition(a: string[], b: string[]): boolean {
  if (contains(a, b) || contains(b, a)) return true;
  const same = (x: string[], y: string[]) => x.join(' ') === y.join(' ');
  for (let k = 1; k < Math.min(a.length, b.length); k++) {
    if (same(a.slice(-k), b.slice(0, k)) || same(b.slice(-k), a.slice(0, k))) return true;
  }
  return false;
}
