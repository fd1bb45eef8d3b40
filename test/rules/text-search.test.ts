import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  allSearchWords,
  matchesSearch,
  searchableFields,
  searchWords,
  textKey,
} from '../../src/rules/text-search.js';
import { content, minimalBodies } from './fixtures.js';

describe('searchWords', () => {
  test('folds case and removes accents', () => {
    assert.deepEqual(searchWords('Écran  PLAT Électrique'), ['ecran', 'plat', 'electrique']);
    assert.equal(textKey(' Électrique '), 'electrique');
  });

  test('splits on anything that is not a letter or a digit', () => {
    assert.deepEqual(searchWords('PROD-001, 4K/UHD tv’s'), ['prod', '001', '4k', 'uhd', 'tv', 's']);
    assert.deepEqual(searchWords(' -- '), []);
  });

  test('gives the same words for a text in upper and lower case', () => {
    const ascii = fc.string({ unit: fc.constantFrom(...'abcxyzéèàüç 0-9,'.split('')) });
    fc.assert(
      fc.property(ascii, (text) => {
        assert.deepEqual(searchWords(text.toUpperCase()), searchWords(text));
      }),
    );
  });
});

describe('matchesSearch', () => {
  const words = ['gaming', 'laptops', 'ecran'];

  test('matches a word by any of its prefixes, whatever the case and accents of the query', () => {
    assert.equal(matchesSearch(searchWords('lapt'), words), true);
    assert.equal(matchesSearch(searchWords('LAPTOPS'), words), true);
    assert.equal(matchesSearch(searchWords('Écr'), words), true);
  });

  test('does not match inside a word', () => {
    assert.equal(matchesSearch(searchWords('tops'), words), false);
  });

  test('requires every query word to match', () => {
    assert.equal(matchesSearch(searchWords('gam lap'), words), true);
    assert.equal(matchesSearch(searchWords('gam phone'), words), false);
  });

  test('filters nothing for a query without words', () => {
    assert.equal(matchesSearch(searchWords('  '), []), true);
  });

  test('matches every prefix of every word of a text against that text', () => {
    fc.assert(
      fc.property(fc.string(), fc.nat(), (text, cut) => {
        const textWords = searchWords(text);
        const prefixes = textWords.map((word) => word.slice(0, 1 + (cut % word.length)));
        assert.equal(matchesSearch(prefixes, textWords), true);
      }),
    );
  });
});

describe('searchableFields', () => {
  test('keeps the name apart from the description, tags, queries and values', () => {
    const block = content({
      ...minimalBodies.blockList,
      name: 'Block Discontinued',
      description: 'Old stock',
      tags: ['maintenance'],
      conditions: { queries: ['Laptops'] },
      fieldValues: ['PROD-001'],
    });
    assert.deepEqual(searchableFields(block), {
      name: ['block', 'discontinued'],
      description: ['old', 'stock'],
      tags: ['maintenance'],
      queries: ['laptops'],
      values: ['prod', '001'],
    });
  });

  test('takes pinned values, redirect URLs and banner URLs and zones as the type values', () => {
    assert.deepEqual(searchableFields(content(minimalBodies.pinned)).values, ['p1']);
    assert.deepEqual(searchableFields(content(minimalBodies.redirect)).values, [
      'https',
      'shop',
      'example',
      'sale',
    ]);
    assert.ok(allSearchWords(searchableFields(content(minimalBodies.banner))).has('top'));
  });
});
