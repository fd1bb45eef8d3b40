import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { filterOf } from '../../src/query/shopper-filter.js';
import {
  hiddenConstruct,
  isForbiddenParam,
  RefusedValue,
  shopperValue,
} from '../../src/query/shopper-params.js';
import { profilePolicy } from '../../src/query/solr-request.js';
import { ATTACKS } from './attacks.js';

/** What Solr would run, in the spelling Solr reads it (case and whitespace as in the value). */
const SOLR_CONSTRUCTS = ['{!', '${', '_query_', '_val_', 'query(', '[subquery', 'fromIndex'];

/**
 * The test's own reading of the Lucene parser's unescaping (`\uXXXX` is the character, `\x` is
 * x), independent of the code under test.
 */
function luceneUnescaped(text: string): string {
  return text.replace(/\\(?:u([0-9a-fA-F]{4})|([\s\S]))/g, (_all, hex?: string, char?: string) =>
    hex === undefined ? (char ?? '') : String.fromCharCode(Number.parseInt(hex, 16)),
  );
}

/** Every way Solr can read a value we send: as sent, unescaped once (a field), twice (a nested query). */
function solrReadings(sent: string): string[] {
  const once = luceneUnescaped(sent);
  return [sent, once, luceneUnescaped(once)];
}

const PARAMS = ['fq', 'sort', 'fl', 'facet.query', 'bf', 'rows', 'group.sort'];
const NO_FIELD_LISTS = {};

/** A construct written as an attacker might: random case, whitespace, and escapes of any depth. */
function mangled(construct: string) {
  const oneChar = (c: string) =>
    fc
      .record({
        upper: fc.boolean(),
        space: fc.constantFrom('', '', '', ' ', '\t', '\n', '\u00a0'),
        how: fc.constantFrom('none', 'none', 'backslash', 'unicode', 'UNICODE', 'double'),
      })
      .map(({ upper, space, how }) => {
        const cased = upper ? c.toUpperCase() : c;
        const hex = cased.charCodeAt(0).toString(16).padStart(4, '0');
        const written =
          how === 'backslash'
            ? `\\${cased}`
            : how === 'unicode'
              ? `\\u${hex}`
              : how === 'UNICODE'
                ? `\\u${hex.toUpperCase()}`
                : how === 'double'
                  ? `\\\\u${hex}`
                  : cased;
        return space + written;
      });
  return fc.tuple(...[...construct].map(oneChar)).map((parts) => parts.join(''));
}

const CONSTRUCTS = [
  '{!join fromIndex=other from=id to=id}*:*',
  '_query_:"x"',
  '_val_:"x"',
  '[subquery fromIndex=other]',
  'query($qq)',
  // Macro expansion of another parameter (written so that it reads as no template).
  '\u0024{other}',
  'fromIndex',
];

/** Text around a construct, without backslashes, so that none of it escapes the construct's first character. */
const around = fc.string({
  unit: fc.constantFrom(...'abc :*"()[]{}!$_-,. AND OR TO'.split(' '), ' ', ':'),
  maxLength: 20,
});

describe('shopper parameter values', () => {
  test('the four values of issue 26 are refused', () => {
    for (const [name, value] of ATTACKS) {
      assert.ok(shopperValue(name, value, NO_FIELD_LISTS) instanceof RefusedValue, `${name}=${value}`);
    }
  });

  test('a value embedding local params, a nested query, a function or a subquery is refused, however written', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...PARAMS),
        around,
        fc.constantFrom(...CONSTRUCTS).chain(mangled),
        around,
        (name, before, construct, after) => {
          const value = `${before}${construct}${after}`;
          assert.ok(shopperValue(name, value, NO_FIELD_LISTS) instanceof RefusedValue, JSON.stringify(value));
        },
      ),
      { numRuns: 2000 },
    );
  });

  test('no value let through holds a construct Solr would run, in any reading Solr makes of it', () => {
    const anything = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 60 }),
      fc
        .tuple(
          fc.string({ maxLength: 10 }),
          fc.constantFrom(...CONSTRUCTS).chain(mangled),
          fc.string({ maxLength: 10 }),
        )
        .map((parts) => parts.join('')),
      fc.string({
        unit: fc.constantFrom(
          '\\',
          'u',
          '0',
          '7',
          'b',
          'B',
          '{',
          '!',
          '_',
          'q',
          'uery',
          '(',
          '$',
          'x',
          ':',
          '"',
        ),
        maxLength: 40,
      }),
    );
    fc.assert(
      fc.property(fc.constantFrom(...PARAMS), anything, (name, value) => {
        const sent = shopperValue(name, value, NO_FIELD_LISTS);
        if (sent instanceof RefusedValue) return;
        for (const reading of solrReadings(sent)) {
          for (const construct of SOLR_CONSTRUCTS) {
            assert.ok(
              !reading.includes(construct),
              `${name}=${JSON.stringify(value)} sent as ${JSON.stringify(sent)}`,
            );
          }
        }
      }),
      { numRuns: 3000 },
    );
  });

  test('filters, sorts and field lists of the safe forms pass, written anew', () => {
    const cases: Array<[string, string, string]> = [
      ['fq', 'brand:acme', 'brand:"acme"'],
      ['fq', ' -brand:"big \\"co\\"" ', '-brand:"big \\"co\\""'],
      ['fq', 'price:[10 TO *]', 'price:["10" TO *]'],
      ['fq', 'price:{* TO 20]', 'price:{* TO "20"]'],
      ['fq', 'brand:(acme OR "big co")', 'brand:("acme" OR "big co")'],
      ['fq', 'in_stock:*', 'in_stock:*'],
      ['fq', 'color:r\\u0065d', 'color:"red"'],
      ['sort', 'price asc, score DESC', 'price asc,score desc'],
      ['fl', 'id name,price', 'id,name,price'],
      ['fl', '*', '*'],
      ['rows', '10', '10'],
      ['facet.field', 'brand', 'brand'],
    ];
    for (const [name, value, sent] of cases) assert.equal(shopperValue(name, value, NO_FIELD_LISTS), sent);
  });

  test('other forms of fq, sort and fl are refused, and the profile lists narrow sort and fl', () => {
    const refused: Array<[string, string]> = [
      ['fq', 'brand:acme OR color:red'],
      ['fq', 'acme'],
      ['fq', 'brand:'],
      ['fq', 'brand:"open'],
      ['fq', 'price:[1 TO 2'],
      ['fq', 'brand:(a b)'],
      ['fq', '_VAL_:x'],
      ['sort', 'price'],
      ['sort', 'div(price,2) asc'],
      ['sort', 'price up'],
      ['fl', 'n:name'],
      ['fl', 'sum(a,b)'],
      ['fl', '[child]'],
      ['fl', ', ,'],
    ];
    for (const [name, value] of refused) {
      assert.ok(shopperValue(name, value, NO_FIELD_LISTS) instanceof RefusedValue, `${name}=${value}`);
    }
    const lists = { sortFields: new Set(['price']), returnFields: new Set(['id', 'name']) };
    assert.equal(shopperValue('sort', 'price desc', lists), 'price desc');
    assert.ok(shopperValue('sort', 'cost asc', lists) instanceof RefusedValue);
    assert.equal(shopperValue('fl', 'id,name', lists), 'id,name');
    assert.ok(shopperValue('fl', 'id,cost', lists) instanceof RefusedValue);
    assert.ok(shopperValue('fl', '*', lists) instanceof RefusedValue);
  });

  test('a filter written anew reads back as itself', () => {
    const value = fc.string({
      unit: fc.constantFrom(
        'a',
        'b',
        ' ',
        '"',
        '\\',
        '(',
        ')',
        '[',
        ']',
        '{',
        '}',
        '*',
        'OR',
        'TO',
        '-',
        ':',
      ),
      maxLength: 30,
    });
    fc.assert(
      fc.property(fc.constantFrom('brand', 'price', '_s'), value, (field, rest) => {
        const once = filterOf(`${field}:${rest}`);
        if (once !== undefined) assert.equal(filterOf(once), once);
      }),
      { numRuns: 2000 },
    );
  });

  test('the check is one pass: a long value costs no more than its length', () => {
    // A value of many near-misses, the shape that makes a backtracking pattern slow.
    const long = `${'{ \\u007'.repeat(20_000)}x`;
    const started = performance.now();
    assert.equal(hiddenConstruct(long), undefined);
    assert.ok(performance.now() - started < 1000, 'linear in the value');
  });
});

describe('parameter names', () => {
  test('names that reach other cores, handlers or parsers are forbidden, in any case', () => {
    for (const name of [
      'collection',
      'Collection',
      'shards',
      'shards.tolerant',
      'shards.preference',
      'fromIndex',
      'qt',
      'stream.url',
      'json.facet',
      'json',
      'defType',
      'expandMacros',
      '_route_',
      'distrib',
    ]) {
      assert.ok(isForbiddenParam(name), name);
    }
    for (const name of ['rows', 'start', 'fq', 'sort', 'fl', 'facet.field', 'facet'])
      assert.ok(!isForbiddenParam(name), name);
  });

  test('a profile stored before collection was forbidden never passes it on', () => {
    const policy = profilePolicy({ defaults: {}, allowedParams: ['rows', 'collection', 'shards.tolerant'] });
    assert.deepEqual([...policy.allowed], ['rows']);
  });
});
