import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  findRewriteCycle,
  findRewriteCycleSliced,
  type IdentifiedRewrite,
} from '../../src/rewrites/loops.js';
import { termKey } from '../../src/text/term-key.js';
import { longestStall } from '../helpers/event-loop.js';

// Few terms, spelt in several ways that share a term key, so loops, shared nodes and
// two-way sets meeting each other are common.
const TERMS = ['a', 'A', 'b', 'B ', 'c', 'Ç', 'd', 'e e', 'E  E'];
const term = fc.constantFrom(...TERMS);

const rewrite: fc.Arbitrary<Omit<IdentifiedRewrite, 'id'>> = fc.oneof(
  fc.record({ type: fc.constant('misspelling' as const), misspelling: term, correction: term }),
  fc.record({ type: fc.constant('headTail' as const), query: term, head: term }),
  fc.record({
    type: fc.constant('synonym' as const),
    input: term,
    synonyms: fc.array(term, { minLength: 1, maxLength: 3 }),
  }),
  fc.record({
    type: fc.constant('synonym' as const),
    synonyms: fc.array(term, { minLength: 2, maxLength: 3 }),
  }),
  fc.record({ type: fc.constant('phrase' as const), phrase: term }),
  fc.record({
    type: fc.constant('removeWords' as const),
    words: fc.array(term, { minLength: 1, maxLength: 3 }),
  }),
);
const rewriteSet = fc
  .array(rewrite, { maxLength: 8 })
  .map((set) => set.map((content, index) => ({ ...content, id: `r${index}` }) as IdentifiedRewrite));

/**
 * The reference, by brute force over the definition: terms are equal by term key; the members of
 * a two-way set are one node (joined until nothing changes); a set loops when, in the transitive
 * closure of its directed rewrites between nodes, some node reaches itself.
 */
function loopsByBruteForce(set: IdentifiedRewrite[]): boolean {
  const keys = [...new Set(TERMS.map(termKey))];
  const same = keys.map((a) => keys.map((b) => a === b));
  let grew = true;
  while (grew) {
    grew = false;
    for (const r of set) {
      if (r.type !== 'synonym' || r.input !== undefined) continue;
      for (const x of r.synonyms) {
        for (const y of r.synonyms) {
          for (let i = 0; i < keys.length; i++) {
            for (let j = 0; j < keys.length; j++) {
              // i ~ x, y ~ j ⇒ i ~ j
              const joins = same[i]![keys.indexOf(termKey(x))]! && same[keys.indexOf(termKey(y))]![j]!;
              if (joins && !same[i]![j]) {
                same[i]![j] = true;
                grew = true;
              }
            }
          }
        }
      }
    }
  }
  const reach = keys.map(() => keys.map(() => false));
  const edge = (from: string, to: string) => {
    const f = keys.indexOf(termKey(from));
    const t = keys.indexOf(termKey(to));
    for (const i of keys.keys()) {
      for (const j of keys.keys()) if (same[i]![f] && same[t]![j]) reach[i]![j] = true;
    }
  };
  for (const r of set) {
    if (r.type === 'misspelling') edge(r.misspelling, r.correction);
    if (r.type === 'headTail') edge(r.query, r.head);
    if (r.type === 'synonym' && r.input !== undefined) for (const s of r.synonyms) edge(r.input, s);
  }
  for (const k of keys.keys())
    for (const i of keys.keys())
      for (const j of keys.keys()) {
        if (reach[i]![k] && reach[k]![j]) reach[i]![j] = true;
      }
  return keys.some((_, i) => reach[i]![i]);
}

describe('the rewrite loop check', () => {
  test('refuses exactly the sets whose rewrite graph has a cycle, naming a real one', () => {
    fc.assert(
      fc.property(rewriteSet, (set) => {
        const cycle = findRewriteCycle(set);
        assert.equal(cycle !== undefined, loopsByBruteForce(set), JSON.stringify({ set, cycle }));
        if (!cycle) return;
        const { terms, ids } = cycle;
        assert.ok(terms.length >= 2);
        assert.equal(termKey(terms[0]!), termKey(terms.at(-1)!));
        // The rewrites named carry the loop: with the two-way sets (which join terms) and
        // nothing else, the set still loops.
        for (const id of ids) assert.ok(set.some((r) => r.id === id));
        const named = set.filter(
          (r) => ids.includes(r.id) || (r.type === 'synonym' && r.input === undefined),
        );
        assert.ok(loopsByBruteForce(named), JSON.stringify({ set, cycle }));
      }),
      { numRuns: 3000 },
    );
  });

  test('accepts a long chain and names a loop as a reader follows it', () => {
    const chain: IdentifiedRewrite[] = Array.from({ length: 20_000 }, (_, i) => ({
      type: 'misspelling',
      misspelling: `t${i}`,
      correction: `t${i + 1}`,
      id: `r${i}`,
    }));
    assert.equal(findRewriteCycle(chain), undefined);
    const closed = [
      ...chain,
      { type: 'headTail', query: 't20000', head: 't0', id: 'back' } as IdentifiedRewrite,
    ];
    assert.equal(findRewriteCycle(closed)?.ids.length, 20_001);
    const small: IdentifiedRewrite[] = [
      { type: 'misspelling', misspelling: 'lapotp', correction: 'laptop', id: '1' },
      { type: 'headTail', query: 'Laptop', head: 'lapotp', id: '2' },
    ];
    assert.deepEqual(findRewriteCycle(small)?.terms, ['lapotp', 'laptop', 'lapotp']);
  });

  test('lets the event loop run while it checks a large set, and finds the same loop', async (t) => {
    // Words shared along the chain make the overlap index work, as in a real studio.
    const chain: IdentifiedRewrite[] = Array.from({ length: 20_000 }, (_, i) => ({
      type: 'misspelling',
      misspelling: `cheap laptop t${i}`,
      correction: `cheap laptop t${i + 1}`,
      id: `r${i}`,
    }));
    const closed = [
      ...chain,
      {
        type: 'headTail',
        query: 'cheap laptop t20000',
        head: 'cheap laptop t0',
        id: 'back',
      } as IdentifiedRewrite,
    ];
    let sliced: Awaited<ReturnType<typeof findRewriteCycleSliced>>;
    const stall = await longestStall(t, 50, async () => {
      sliced = await findRewriteCycleSliced(closed);
    });
    assert.ok(stall < 50, `the event loop was held for ${stall.toFixed(1)} ms`);
    assert.deepEqual(sliced!, findRewriteCycle(closed));
    assert.equal(sliced!.ids.length, 20_001);
    assert.equal(await findRewriteCycleSliced(chain), undefined);
  });
});
