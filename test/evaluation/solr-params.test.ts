import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { emptyEffect } from '../../src/evaluation/effect.js';
import type { Rewritten } from '../../src/evaluation/rewriting.js';
import { escapedTerm, quoted, solrParams, solrQuery, weight } from '../../src/evaluation/solr-params.js';
import { lex, type Token } from './solr-syntax.js';

// Characters with a meaning in the query syntax, mixed with letters, spaces of every kind and
// characters outside ASCII.
const hostile = fc.string({
  unit: fc.constantFrom(
    ...'+-&|!(){}[]^"~*?:\\/ \t\n\r\u3000,'.split(''),
    'a',
    'B',
    '1',
    'é',
    '😀',
    'AND',
    'OR',
    'NOT',
    '&&',
    '||',
    '\\"',
  ),
  minLength: 1,
  maxLength: 12,
});
const anyText = fc.oneof(hostile, fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }));
const fieldName = anyText.filter((name) => /\S/.test(name));
const values = fc.uniqueArray(anyText, { minLength: 1, maxLength: 3 });
const boost = fc.constantFrom(10, 2.5, 1);

const noRewrites = (words: string[]): Rewritten => ({ words, applied: [], phrases: [], synonyms: [] });

const term = (text: string): Token => ({ kind: 'term', text });
const quote = (text: string): Token => ({ kind: 'quoted', text });
const t = (kind: 'or' | 'minus' | 'lparen' | 'rparen' | 'colon' | 'star' | 'caret'): Token => ({ kind });
const number = (text: string): Token => ({ kind: 'number', text });

describe('Solr parameters', () => {
  test('are written as the issue shows them', () => {
    const effect = emptyEffect();
    effect.blocked.push({ fieldName: 'id', values: ['PROD-001', 'PROD-002'] });
    effect.boosts.push({ fieldName: 'brand', value: 'acme', weight: 10 });
    effect.buries.push({ fieldName: 'brand', value: 'zeta', weight: 0.0000001 });
    effect.pins.push({ value: 'P9', position: 1 }, { value: 'P,3', position: 2 });
    assert.deepEqual(solrParams(noRewrites(['laptop', 'bags']), effect), {
      q: 'laptop bags',
      fq: ['-id:("PROD-001" OR "PROD-002")'],
      bq: ['brand:"acme"^10', '(*:* -brand:"zeta")^0.0000001'],
      elevateIds: 'P9,P\\,3',
      excludeIds: 'PROD-001,PROD-002',
      params: [],
      facetFields: [],
    });
    assert.equal(solrQuery(noRewrites([])), '*:*');
    assert.equal(weight(1e-7), '0.0000001');
    assert.equal(quoted('a "b" \\ c'), '"a \\"b\\" \\\\ c"');
    assert.equal(escapedTerm('a:b c'), 'a\\:b\\ c');
  });

  test('no field name or value changes the structure of the query (reference lexer)', () => {
    fc.assert(
      fc.property(
        fieldName,
        values,
        boost,
        fc.array(anyText, { minLength: 1, maxLength: 3 }),
        (field, vs, w, words) => {
          const effect = emptyEffect();
          effect.blocked.push({ fieldName: field, values: vs });
          effect.boosts.push({ fieldName: field, value: vs[0]!, weight: w });
          effect.buries.push({ fieldName: field, value: vs[0]!, weight: w });
          const solr = solrParams(noRewrites(words), effect);
          const orValues = vs.flatMap((v, i) => (i === 0 ? [quote(v)] : [t('or'), quote(v)]));
          assert.deepEqual(lex(solr.fq[0]!), [
            t('minus'),
            term(field),
            t('colon'),
            t('lparen'),
            ...orValues,
            t('rparen'),
          ]);
          const w$ = String(w);
          assert.deepEqual(lex(solr.bq[0]!), [
            term(field),
            t('colon'),
            quote(vs[0]!),
            t('caret'),
            number(w$),
          ]);
          assert.deepEqual(lex(solr.bq[1]!), [
            t('lparen'),
            t('star'),
            t('colon'),
            t('star'),
            t('minus'),
            term(field),
            t('colon'),
            quote(vs[0]!),
            t('rparen'),
            t('caret'),
            number(w$),
          ]);
          assert.deepEqual(lex(solr.q), words.map(term));
        },
      ),
      { numRuns: 2000 },
    );
  });

  // Debian's liblucene8-java names its jars by Lucene's version (8.7.0 in bookworm).
  const shared = '/usr/share/java';
  const installed = existsSync(shared) ? readdirSync(shared) : [];
  const jars = ['lucene-core', 'lucene-queryparser', 'lucene-analyzers-common'].map((name) => {
    const jar = installed.find((file) => new RegExp(`^${name}-8[.\\d]*\\.jar$`).test(file));
    return jar === undefined ? undefined : `${shared}/${jar}`;
  });
  const java = spawnSync('java', ['-version']).status === 0;
  const lucene = java && jars.every((jar) => jar !== undefined);
  // Under CI the parser must be there (the CI script installs it): a missing one fails.
  test("Lucene's own query parser reads every generated parameter as intended", {
    skip:
      lucene || process.env.CI
        ? undefined
        : 'Lucene 8 (Debian liblucene8-java) and java are not installed here',
  }, () => {
    const hex = (text: string) => Buffer.from(text, 'utf8').toString('hex');
    const termShape = (field: string, text: string) => `(term ${hex(field)} ${hex(text)})`;
    const javaFloat = (w: number) => (Number.isInteger(w) ? `${w}.0` : String(w));
    const cases = fc.sample(
      fc.tuple(fieldName, values, boost, fc.array(anyText, { minLength: 1, maxLength: 3 })),
      {
        numRuns: 400,
        seed: 42,
      },
    );
    const queries: string[] = [];
    const expected: string[] = [];
    for (const [field, vs, w, words] of cases) {
      const effect = emptyEffect();
      effect.blocked.push({ fieldName: field, values: vs });
      effect.boosts.push({ fieldName: field, value: vs[0]!, weight: w });
      effect.buries.push({ fieldName: field, value: vs[0]!, weight: w });
      const synonyms = [{ words: [words[0]!], alternatives: vs }];
      const solr = solrParams({ words, applied: [], phrases: [], synonyms }, effect);
      const group =
        vs.length === 1
          ? termShape(field, vs[0]!)
          : `(bool ${vs.map((v) => `?${termShape(field, v)}`).join(' ')})`;
      queries.push(solr.fq[0]!, solr.bq[0]!, solr.bq[1]!, solr.q);
      expected.push(
        `(bool -${group})`,
        `(boost ${javaFloat(w)} ${termShape(field, vs[0]!)})`,
        `(boost ${javaFloat(w)} (bool ?(all) -${termShape(field, vs[0]!)}))`,
      );
      const synonymGroup = `(bool ${[words[0]!, ...vs].map((x) => `?${termShape('_text_', x)}`).join(' ')})`;
      const rest = words.slice(1).map((x) => termShape('_text_', x));
      expected.push(
        rest.length === 0 ? synonymGroup : `(bool ${[synonymGroup, ...rest].map((s) => `?${s}`).join(' ')})`,
      );
    }
    const run = spawnSync('java', ['-cp', jars.join(':'), 'test/evaluation/lucene/ParseQueries.java'], {
      input: `${queries.map(hex).join('\n')}\n`,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(run.status, 0, run.stderr);
    const shapes = run.stdout.trim().split('\n');
    assert.equal(shapes.length, queries.length);
    shapes.forEach((shape, i) => {
      assert.equal(shape, expected[i], `${queries[i]} was read as ${shape}`);
    });
  });
});
