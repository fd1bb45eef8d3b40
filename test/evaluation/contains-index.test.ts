import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { CompiledRules } from '../../src/evaluation/compiled-rules.js';
import type { EvaluatedRule, EvaluationInput } from '../../src/evaluation/evaluation.js';
import { termKey } from '../../src/text/term-key.js';
import { content } from '../rules/fixtures.js';
import { AT, referenceFired } from './reference.js';

// Words whose keys meet or differ only through the term key: case, accents written both
// ways, compatibility forms, the final sigma, ß, stroked letters, and a mark that folds to nothing.
const word = fc.constantFrom(
  'a',
  'b',
  'ab',
  'Laptop',
  'LAPTOP',
  'café',
  'cafe\u0301',
  'CAFE',
  'ﬁt',
  'fit',
  'Ｅ',
  'e',
  'ΟΔΟΣ',
  'οδος',
  'straße',
  'STRASSE',
  'łódź',
  'lodz',
  '\u0301',
);
const gap = fc.constantFrom(' ', '  ', '\t', '\u00a0', ' \n ');
const text = (maxWords: number) =>
  fc
    .tuple(fc.array(word, { minLength: 1, maxLength: maxWords }), gap)
    .map(([words, between]) => words.join(between));

const conditions = fc.record({
  queries: fc.array(text(4), { maxLength: 4 }),
  queryMatch: fc.constantFrom('contains', 'contains', 'is'),
});
const input = (q: string): EvaluationInput => ({
  q,
  at: AT,
  segments: [],
  queryProfiles: [],
  filters: [],
  explain: false,
});
const wordsOfQuery = (q: string) => (termKey(q) === '' ? [] : termKey(q).split(' '));
const ids = (rules: ReadonlyArray<{ id: string }>) => rules.map((r) => r.id);

function ruleOf(id: string, conditions: { queries: string[]; queryMatch: string }): EvaluatedRule {
  return {
    id,
    creationDate: '2026-01-01T00:00:00.000Z',
    content: content({ type: 'redirect', name: id, url: 'https://shop.example/', conditions }),
  };
}

describe('the index of contains conditions', () => {
  test('fires what a check of every condition of every rule fires, through puts and removes', () => {
    const step = fc.oneof(
      fc.record({ put: fc.nat(9), conditions }),
      fc.record({ remove: fc.nat(9) }),
      fc.record({ q: text(6) }),
    );
    fc.assert(
      fc.property(
        fc.array(conditions, { maxLength: 10 }),
        fc.array(step, { maxLength: 20 }),
        (drawn, steps) => {
          const held = new Map(drawn.map((c, i) => [`r${i}`, ruleOf(`r${i}`, c)]));
          const index = new CompiledRules([...held.values()]);
          for (const change of steps) {
            if ('remove' in change) {
              index.remove(`r${change.remove}`);
              held.delete(`r${change.remove}`);
            } else if ('put' in change) {
              const rule = ruleOf(`r${change.put}`, change.conditions);
              index.put(rule);
              held.set(rule.id, rule);
            } else {
              const expected = referenceFired([...held.values()], input(change.q));
              assert.deepEqual(ids(index.matching(wordsOfQuery(change.q), input(change.q))), ids(expected));
            }
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  test('answers the same whatever the order and repeats of the query words', () => {
    const index = new CompiledRules([
      ruleOf('r1', { queries: ['red bag'], queryMatch: 'contains' }),
      ruleOf('r2', { queries: ['bag bag'], queryMatch: 'contains' }),
      ruleOf('r3', { queries: ['red shoe'], queryMatch: 'contains' }),
    ]);
    for (const words of [
      ['bag', 'red'],
      ['red', 'bag', 'red'],
      ['bag', 'bag', 'red', 'bag'],
    ])
      assert.deepEqual(ids(index.matching(words, input(''))), ['r1', 'r2']);
    assert.deepEqual(ids(index.matching(['red'], input(''))), []);
  });

  // The shape of a tenant's attack: many rules, each with the most conditions a rule may have,
  // all sharing words with the query but none matching it. The work of matching is counted
  // (trie nodes visited and lookups made), and depends on the query alone.
  const QUERY = ['a', 'b'];
  // A query of n distinct words visits at most 2^n nodes, each with at most n lookups.
  const BOUND = 2 ** QUERY.length * (QUERY.length + 1);
  const shapes: Record<string, (rule: number, i: number) => string> = {
    'a common first word': (rule, i) => `a w${rule}x${i}`,
    'the query words and a rare one': (rule, i) => `a b w${rule}x${i}`,
    'a rare word and a common last one': (rule, i) => `w${rule}x${i} b`,
    // Every word is as common as the query's, so the rarest word is no help here.
    'few words, all common': (_, i) =>
      ['a', ...Array.from({ length: 10 }, (__, bit) => ((i >> bit) & 1 ? `h${bit}` : `k${bit}`))].join(' '),
  };
  for (const [shape, condition] of Object.entries(shapes)) {
    test(`examines a bounded number of entries for a query, whatever the rules (${shape})`, () => {
      const work = (rules: number) => {
        const studio: EvaluatedRule[] = Array.from({ length: rules }, (_, r) =>
          ruleOf(`r${r}`, {
            queries: Array.from({ length: 1_000 }, (__, i) => condition(r, i)),
            queryMatch: 'contains',
          }),
        );
        studio.push(ruleOf('match', { queries: ['b a'], queryMatch: 'contains' }));
        const index = new CompiledRules(studio);
        const before = index.examined;
        assert.deepEqual(ids(index.matching(QUERY, input(''))), ['match']);
        return index.examined - before;
      };
      const few = work(1);
      const many = work(20);
      assert.ok(many <= BOUND, `examined ${many} entries, more than ${BOUND}`);
      assert.equal(many, few);
    });
  }

  test('keeps nothing of a rule taken out', () => {
    const index = new CompiledRules([
      ruleOf('r1', { queries: ['a b', 'a c', 'b a', '\u0301'], queryMatch: 'contains' }),
      ruleOf('r2', { queries: ['a b c'], queryMatch: 'contains' }),
    ]);
    index.remove('r1');
    index.remove('r2');
    const before = index.examined;
    assert.deepEqual(index.matching(['a', 'b', 'c'], input('')), []);
    assert.equal(index.examined, before);
  });

  test('lets the event loop run every few hundred conditions while compiling', async () => {
    const rules = Array.from({ length: 20 }, (_, r) =>
      ruleOf(`r${r}`, { queries: Array.from({ length: 99 }, (__, i) => `w${i}`), queryMatch: 'contains' }),
    );
    let passes = 0;
    const index = await CompiledRules.sliced(rules, async () => {
      passes++;
    });
    assert.equal(index.count, 20);
    // 100 places a rule: a pass every third rule.
    assert.equal(passes, 6);
  });
});
