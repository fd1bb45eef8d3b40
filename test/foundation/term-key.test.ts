import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { checkTerm, MAX_TERM_LENGTH, termKey } from '../../src/text/term-key.js';

describe('termKey', () => {
  it('folds case, accents and surrounding whitespace as in the contract example', () => {
    assert.equal(termKey('Électrique '), 'electrique');
  });

  it('collapses inner whitespace of any kind into one space', () => {
    assert.equal(termKey('  iPhone \t 15\u00a0\u3000Pro \n'), 'iphone 15 pro');
  });

  it('folds full-width letters, ligatures and superscripts through NFKC', () => {
    assert.equal(termKey('ＥＬＥＣＴＲＩＣ'), 'electric');
    assert.equal(termKey('ﬁsh ﬂour'), 'fish flour');
    assert.equal(termKey('m²'), 'm2');
  });

  it('applies a full case fold, including the sharp s and the final sigma', () => {
    assert.equal(termKey('Straße'), 'strasse');
    assert.equal(termKey('STRAẞE'), 'strasse');
    assert.equal(termKey('ΟΔΟΣ'), 'οδοσ');
    assert.equal(termKey('οδος'), 'οδοσ');
  });

  it('removes accents and strokes but keeps the marks that change a word', () => {
    assert.equal(termKey('Crème Brûlée'), 'creme brulee');
    assert.equal(termKey('Łódź'), 'lodz');
    assert.equal(termKey('İstanbul'), 'istanbul');
    assert.equal(termKey('がっこう'), 'がっこう');
    assert.equal(termKey('हिंदी'), 'हिंदी');
  });

  it('gives equal keys to precomposed and decomposed spellings', () => {
    assert.equal(termKey('Cafe\u0301'), termKey('Caf\u00e9'));
    assert.equal(termKey('Caf\u00e9'), 'cafe');
  });

  it('folds printable ASCII exactly as it folds the same text beside an accent', () => {
    // An accented letter sends the text through the full Unicode path, so
    // this checks the ASCII shortcut against it.
    const ascii = fc.string({
      unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
    });
    fc.assert(
      fc.property(ascii, (text) => {
        const trimmed = text.trimStart();
        assert.equal(termKey(`É${trimmed}`), `e${termKey(trimmed)}`);
      }),
    );
  });

  it('is idempotent for any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-composite' }), (text) => {
        const key = termKey(text);
        assert.equal(termKey(key), key);
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const key = termKey(text);
        assert.equal(termKey(key), key);
      }),
    );
  });

  it('is idempotent for every single code point in any position', () => {
    for (let codePoint = 0; codePoint <= 0x10ffff; codePoint += codePoint < 0x3400 ? 1 : 7) {
      const character = String.fromCodePoint(codePoint);
      for (const text of [character, `a${character}`, ` ${character}b`, character + character]) {
        const key = termKey(text);
        assert.equal(termKey(key), key, `U+${codePoint.toString(16)} in ${JSON.stringify(text)}`);
      }
    }
  });
});

describe('checkTerm', () => {
  it('accepts a term and returns it trimmed with its key', () => {
    assert.deepEqual(checkTerm('  Électrique \n'), { valid: true, term: 'Électrique', key: 'electrique' });
  });

  it('refuses an empty or blank term', () => {
    assert.deepEqual(checkTerm(''), { valid: false, reason: 'must not be empty' });
    assert.deepEqual(checkTerm(' \t\n '), { valid: false, reason: 'must not be empty' });
  });

  it('refuses control characters inside the term and names the one found', () => {
    assert.deepEqual(checkTerm('bell\u0007ring'), {
      valid: false,
      reason: 'must not contain control characters (found U+0007)',
    });
    assert.equal(checkTerm('two\nlines').valid, false);
  });

  it('keeps format characters such as the zero-width joiner of emoji sequences', () => {
    assert.equal(checkTerm('👩\u200d💻 laptop').valid, true);
  });

  it('counts length in characters, not UTF-16 units, after trimming', () => {
    assert.equal(checkTerm(` ${'x'.repeat(MAX_TERM_LENGTH)} `).valid, true);
    assert.equal(checkTerm('😀'.repeat(MAX_TERM_LENGTH)).valid, true);
    assert.deepEqual(checkTerm('x'.repeat(MAX_TERM_LENGTH + 1)), {
      valid: false,
      reason: 'must be at most 100 characters (has 101)',
    });
  });

  it('refuses a term whose key is empty, such as a lone accent', () => {
    assert.deepEqual(checkTerm('\u0301'), { valid: false, reason: 'must contain a letter, digit or symbol' });
  });
});
