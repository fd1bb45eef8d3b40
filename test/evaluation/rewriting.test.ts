import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CompiledStudio } from '../../src/evaluation/compiled-studio.js';
import type { EvaluationInput } from '../../src/evaluation/evaluation.js';
import { CompiledRewrites } from '../../src/evaluation/rewriting.js';
import type { LiveRewrite } from '../../src/rewrites/rewrite.js';
import { content } from '../rules/fixtures.js';

const at = Date.parse('2026-06-01T00:00:00Z');
const apply = (rewrites: LiveRewrite[], query: string) =>
  new CompiledRewrites(rewrites).apply(query.split(' '), at);

describe('rewrites', () => {
  test('apply in the documented order: remove words, misspellings, phrases, head-tail, synonyms', () => {
    // Given in the opposite order: the kind decides, not the order of the list.
    const rewrites: LiveRewrite[] = [
      { id: 's', type: 'synonym', input: 'laptop', synonyms: ['notebook', 'Ultra Book'] },
      { id: 'h', type: 'headTail', query: 'laptop bags for work', head: 'laptop bags' },
      { id: 'p', type: 'phrase', phrase: 'laptop bags', boost: 3 },
      { id: 'm', type: 'misspelling', misspelling: 'lapotp', correction: 'laptop' },
      { id: 'r', type: 'removeWords', words: ['Cheap', 'buy'] },
    ];
    const result = apply(rewrites, 'buy cheap lapotp bags for work');
    assert.deepEqual(result.words, ['laptop', 'bags']);
    assert.deepEqual(
      result.applied.map(({ id, from, to }) => `${id}: ${from} → ${to}`),
      [
        'r: buy → ',
        'r: cheap → ',
        'm: lapotp → laptop',
        'p: laptop bags → "laptop bags"',
        'h: laptop bags for work → laptop bags',
        's: laptop → notebook, ultra book',
      ],
    );
    assert.deepEqual(result.synonyms, [{ words: ['laptop'], alternatives: ['notebook', 'ultra book'] }]);
  });

  test('rewrite each position once: a misspelling chain does not run on', () => {
    const result = apply(
      [
        { id: 'a', type: 'misspelling', misspelling: 'a', correction: 'b' },
        { id: 'b', type: 'misspelling', misspelling: 'b', correction: 'c' },
      ],
      'a b',
    );
    assert.deepEqual(result.words, ['b', 'c']);
  });

  test('two-way synonyms make every entry an alternative of the others; dates are honoured', () => {
    const rewrites: LiveRewrite[] = [
      { id: 'two', type: 'synonym', synonyms: ['tv', 'television'] },
      { id: 'later', type: 'removeWords', words: ['tv'], effectiveStart: '2027-01-01T00:00:00Z' },
    ];
    const result = apply(rewrites, 'television stand');
    assert.deepEqual(result.synonyms, [{ words: ['television'], alternatives: ['tv'] }]);
    assert.deepEqual(apply(rewrites, 'tv').words, ['tv']);
  });

  test('rules match the rewritten query, and the Solr query keeps phrases and expands synonyms', () => {
    const rule = content({
      type: 'redirect',
      name: 'Bags',
      url: 'https://x.example/',
      conditions: { queries: ['LAPTOP bags'] },
    });
    const studio = new CompiledStudio(
      [{ id: 'r1', creationDate: '2026-01-01T00:00:00Z', content: rule }],
      [
        { id: 'm', type: 'misspelling', misspelling: 'lapotp', correction: 'laptop' },
        { id: 'p', type: 'phrase', phrase: 'laptop bags', boost: 2 },
        { id: 's', type: 'synonym', input: 'case', synonyms: ['sleeve'] },
      ],
    );
    const input: EvaluationInput = {
      q: 'Lapotp Bags',
      at: new Date(at),
      segments: [],
      queryProfiles: [],
      filters: [],
      explain: false,
    };
    const answer = studio.evaluate(input);
    assert.equal(answer.rewrittenQuery, 'laptop bags');
    assert.deepEqual(answer.rules, [{ id: 'r1', name: 'Bags', type: 'redirect', precedence: 0 }]);
    assert.equal(answer.solr.q, '"laptop bags"');
    assert.deepEqual(answer.solr.bq, ['"laptop bags"^2']);
    assert.equal(studio.evaluate({ ...input, q: 'red case' }).solr.q, 'red (case OR "sleeve")');
  });
});

describe('conflicts between rules', () => {
  const studio = (bodies: Array<Record<string, unknown>>) =>
    new CompiledStudio(
      bodies.map((body, i) => ({
        id: `r${i}`,
        creationDate: `2026-01-0${i + 1}T00:00:00Z`,
        content: content(body),
      })),
      [],
    );
  const input: EvaluationInput = {
    q: 'x',
    at: new Date(at),
    segments: [],
    queryProfiles: [],
    filters: [],
    explain: true,
  };

  test('resolve by precedence, then the older rule, and say which rule lost and why', () => {
    const answer = studio([
      { type: 'redirect', name: 'Older', url: 'https://a.example/' },
      { type: 'redirect', name: 'Newer', url: 'https://b.example/' },
      { type: 'pinned', name: 'Low', pinnedValues: [{ value: 'P1', position: 1 }] },
      { type: 'pinned', name: 'High', precedence: 3, pinnedValues: [{ value: 'P2', position: 1 }] },
    ]).evaluate(input);
    assert.equal(answer.effect.redirect, 'https://a.example/');
    assert.deepEqual(answer.effect.pins, [{ value: 'P2', position: 1 }]);
    assert.deepEqual(
      answer.explanation?.lost.map((l) => `${l.rule.name} lost ${l.lost} to ${l.to.name}: ${l.reason}`),
      [
        'Newer lost redirect to https://b.example/ to Older: one redirect: same precedence (0), the other rule is older',
        'Low lost pin P1 at position 1 to High: position 1 is taken: the other rule has a higher precedence (3 > 0)',
      ],
    );
  });

  test('a block beats a pin of the same document whatever their precedence', () => {
    const answer = studio([
      { type: 'pinned', name: 'Pin', precedence: 9, pinnedValues: [{ value: 'P1', position: 1 }] },
      { type: 'blockList', name: 'Block', fieldName: 'id', fieldValues: ['P1'] },
    ]).evaluate(input);
    assert.deepEqual(answer.effect.pins, []);
    assert.deepEqual(answer.effect.blocked, [{ fieldName: 'id', values: ['P1'] }]);
    assert.equal(answer.explanation?.lost[0]?.to.name, 'Block');
  });
});
