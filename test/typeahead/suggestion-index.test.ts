import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { termKey } from '../../src/text/term-key.js';
import { compareCodePoints } from '../../src/typeahead/code-point-order.js';
import { buildSuggestionIndex, type SuggestionSource } from '../../src/typeahead/suggestion-index.js';

function served(source: Partial<SuggestionSource>) {
  return buildSuggestionIndex({ included: [], excluded: [], topSearched: [], ...source });
}

describe('buildSuggestionIndex', () => {
  it('matches a prefix by its key, so case and accents do not matter', () => {
    const index = served({ included: ['Electric', 'Elastic', 'Kettle'] });
    for (const prefix of ['el', 'EL', 'Él', ' El ', 'ＥＬ']) {
      assert.deepEqual(index.suggestions(prefix, 10), ['Elastic', 'Electric'], prefix);
    }
  });

  it('answers everything for an empty or blank prefix', () => {
    const index = served({ included: ['b', 'a'] });
    assert.deepEqual(index.suggestions('', 10), ['a', 'b']);
    assert.deepEqual(index.suggestions('   ', 10), ['a', 'b']);
  });

  it('answers nothing when no key starts with the prefix', () => {
    const index = served({ included: ['Electric'] });
    assert.deepEqual(index.suggestions('x', 10), []);
    assert.deepEqual(index.suggestions('electrics', 10), []);
  });

  it('orders by key rather than by display form', () => {
    const index = served({ included: ['Électrique', 'Elastic', 'electric', 'Zebra', 'apple'] });
    assert.deepEqual(index.suggestions('', 10), ['apple', 'Elastic', 'electric', 'Électrique', 'Zebra']);
  });

  it('orders keys by code points, putting characters above U+FFFF after U+FFxx', () => {
    const index = served({ included: ['a😀', 'a\uff5e'] });
    assert.deepEqual(index.suggestions('a', 10), ['a\uff5e', 'a😀']);
  });

  it('cuts the answer to the limit, keeping the first in order', () => {
    const index = served({ included: ['d', 'c', 'b', 'a'] });
    assert.deepEqual(index.suggestions('', 2), ['a', 'b']);
    assert.deepEqual(index.suggestions('', 5000), ['a', 'b', 'c', 'd']);
  });

  it('refuses a limit that is not a positive integer', () => {
    const index = served({ included: ['a'] });
    for (const limit of [0, -1, 1.5, Number.NaN]) {
      assert.throws(() => index.suggestions('', limit), RangeError);
      assert.throws(() => index.answer('', limit), RangeError);
    }
  });

  it('excludes by key, beating both included and top-searched terms', () => {
    const index = served({
      included: ['iPhone', 'iPad'],
      topSearched: ['IPHONE', 'iphone case'],
      excluded: [' iphone'],
    });
    assert.deepEqual(index.suggestions('', 10), ['iPad', 'iphone case']);
  });

  it('serves each key once, preferring the included form over the top-searched one', () => {
    const index = served({ included: ['Café'], topSearched: ['cafe', 'CAFÉ', 'tea'] });
    assert.deepEqual(index.suggestions('', 10), ['Café', 'tea']);
    assert.equal(index.size, 2);
  });

  it('keeps the earliest form of a key within one list', () => {
    assert.deepEqual(served({ topSearched: ['iphone', 'iPhone'] }).suggestions('', 10), ['iphone']);
    assert.deepEqual(served({ included: ['iPhone', 'iphone'] }).suggestions('', 10), ['iPhone']);
  });

  it('skips terms whose key is empty', () => {
    assert.equal(served({ included: ['\u0301', ' ', 'a'] }).size, 1);
  });

  it('answers with the JSON body of the suggestions and a weak ETag', () => {
    const index = served({ included: ['Electric', 'Elastic', 'Electronics', 'Electrical', 'Kettle'] });
    const answer = index.answer('El', 10);
    assert.equal(answer.body, '["Elastic","Electric","Electrical","Electronics"]');
    assert.match(answer.etag, /^W\/"[0-9a-z]{14}"$/);
  });

  it('gives equal answers equal ETags across rebuilds and different answers different ones', () => {
    const before = served({ included: ['Electric', 'Kettle'] });
    const after = served({ included: ['Electric', 'Kettle', 'Kiwi'] });
    assert.equal(after.answer('el', 10).etag, before.answer('el', 10).etag);
    assert.notEqual(after.answer('k', 10).etag, before.answer('k', 10).etag);
    assert.notEqual(before.answer('k', 1).etag, before.answer('', 10).etag);
  });

  it('answers a repeated request with the same body however often it is asked', () => {
    const index = served({ included: ['Electric', 'Elastic'] });
    const first = index.answer('el', 1);
    assert.equal(index.answer('el', 1), first);
    assert.equal(index.answer('el', 2).body, '["Elastic","Electric"]');
    assert.equal(index.answer('EL', 1).body, first.body);
  });

  it('stays correct when many distinct prefixes overflow the answer cache', () => {
    // 286 answers of over 200 characters each are well beyond the cache budget.
    const tail = 'x'.repeat(200);
    const terms = Array.from({ length: 2000 }, (_, i) => `term ${i.toString().padStart(4, '0')} ${tail}`);
    const index = served({ included: terms });
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 2000; i += 7) {
        const prefix = `term ${i.toString().padStart(4, '0')}`;
        assert.equal(index.answer(prefix, 3).body, JSON.stringify([`${prefix} ${tail}`]));
      }
    }
  });
});

/** The contract written out as plainly as possible, to check the index against. */
function referenceAnswer(source: SuggestionSource, prefix: string, limit: number): string[] {
  const excluded = new Set(source.excluded.map(termKey));
  const servedByKey = new Map<string, string>();
  for (const term of [...source.included, ...source.topSearched]) {
    const key = termKey(term);
    if (key !== '' && !excluded.has(key) && !servedByKey.has(key)) servedByKey.set(key, term);
  }
  const prefixKey = termKey(prefix);
  return [...servedByKey]
    .filter(([key]) => key.startsWith(prefixKey))
    .sort(([keyA, termA], [keyB, termB]) => compareCodePoints(keyA, keyB) || compareCodePoints(termA, termB))
    .slice(0, limit)
    .map(([, term]) => term);
}

describe('suggestion index against the reference', () => {
  // A small alphabet with case, accents and a ligature makes shared keys and
  // shared prefixes common, which is where an index could go wrong.
  const letter = fc.constantFrom('a', 'A', 'á', 'b', 'B', 'é', 'e', 'E', 'ﬁ', 'f', 'i', ' ', '😀', '\uff5e');
  const term = fc.string({ unit: letter, minLength: 1, maxLength: 6 });
  const source = fc.record({
    included: fc.array(term, { maxLength: 30 }),
    excluded: fc.array(term, { maxLength: 5 }),
    topSearched: fc.array(term, { maxLength: 30 }),
  });

  it('answers every prefix and limit exactly as the reference does', () => {
    fc.assert(
      fc.property(
        source,
        fc.string({ unit: letter, maxLength: 3 }),
        fc.integer({ min: 1, max: 40 }),
        (terms, prefix, limit) => {
          const index = buildSuggestionIndex(terms);
          const expected = referenceAnswer(terms, prefix, limit);
          assert.deepEqual(index.suggestions(prefix, limit), expected);
          assert.equal(index.answer(prefix, limit).body, JSON.stringify(expected));
        },
      ),
      { numRuns: 500 },
    );
  });
});
