import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { termKey } from '../../src/text/term-key.js';
import { build, engines, skipReason } from '../helpers/app.js';
import { admin, createInstance, suggest } from './helpers.js';

// Letters that fold together (case, accents, ß → ss, ł → l, the ﬁ ligature) and one
// outside the basic plane, so keys collide and code-point order matters.
const LETTERS = ['a', 'A', 'b', 'e', 'é', 'É', 's', 'ß', 'l', 'ł', 'f', 'i', 'ﬁ', 'o', 'ö', '😀'];
const letter = fc.constantFrom(...LETTERS);
const word = fc.array(letter, { minLength: 1, maxLength: 4 }).map((letters) => letters.join(''));
const term = fc.array(word, { minLength: 1, maxLength: 2 }).map((words) => words.join(' '));
const query = fc.record({
  prefix: fc.option(
    fc.array(letter, { maxLength: 3 }).map((letters) => letters.join('')),
    { nil: undefined },
  ),
  limit: fc.option(fc.integer({ min: 1, max: 25 }), { nil: undefined }),
});

function compareCodePoints(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/** The contract, the slow way: first form of each key, minus excluded keys, by key then form. */
function reference(included: string[], excluded: string[], prefix: string | undefined, limit = 10): string[] {
  const excludedKeys = new Set(excluded.map(termKey));
  const served = new Map<string, string>();
  for (const text of included) {
    const key = termKey(text);
    if (!excludedKeys.has(key) && !served.has(key)) served.set(key, text);
  }
  const wanted = termKey(prefix ?? '');
  return [...served]
    .filter(([key]) => key.startsWith(wanted))
    .sort(([ka, a], [kb, b]) => compareCodePoints(ka, kb) || compareCodePoints(a, b))
    .slice(0, limit)
    .map(([, text]) => text);
}

for (const engine of engines) {
  describe(`Suggestions against a reference on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('equal the brute-force answer for random term lists, prefixes and limits', async (t) => {
      const { app } = await build(t, engine);
      const { id, embedToken } = await createInstance(app);
      await fc.assert(
        fc.asyncProperty(
          fc.array(term, { maxLength: 30 }),
          fc.array(term, { maxLength: 8 }),
          fc.array(query, { minLength: 1, maxLength: 5 }),
          async (included, excluded, queries) => {
            const put = await admin(app, 'PUT', `/instances/${id}/terms`, { included, excluded });
            assert.equal(put.status, 200);
            for (const { prefix, limit } of queries) {
              const params = new URLSearchParams();
              if (prefix !== undefined) params.set('prefix', prefix);
              if (limit !== undefined) params.set('limit', String(limit));
              const answer = await suggest(app, embedToken, params.toString());
              assert.equal(answer.status, 200);
              assert.deepEqual(answer.body, reference(included, excluded, prefix, limit));
            }
          },
        ),
        { numRuns: 40 },
      );
    });
  });
}
