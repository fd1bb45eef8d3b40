// The Experiments page's sentences about a variant against the control, without a browser:
// which way the rate goes, whether the difference is clear at the 95 % level, and how many
// more searches the estimate asks for while it is not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pValueText, verdict } from '../../console/src/pages/experiments/verdict.js';

const base = { variant: 'B', control: 'A', moreSearches: null } as const;

test('a clear difference says which way and its p-value', () => {
  assert.equal(
    verdict({ ...base, metric: 'clickThrough', difference: 0.08, pValue: 0.01 }),
    'B gets more clicks than A; the difference is clear (p = 0.01).',
  );
  assert.equal(
    verdict({ ...base, metric: 'conversion', difference: -0.02, pValue: 0.0004 }),
    'B gets fewer purchases than A; the difference is clear (p < 0.001).',
  );
  assert.equal(
    verdict({ ...base, metric: 'noResult', difference: -0.05, pValue: 0.03 }),
    'B finds nothing less often than A; the difference is clear (p = 0.03).',
  );
});

test('a difference not clear yet says how many more searches the estimate asks for', () => {
  assert.equal(
    verdict({ ...base, metric: 'clickThrough', difference: 0.01, pValue: 0.31, moreSearches: 1234.2 }),
    'B gets more clicks than A so far; too early to tell: about 1,235 more searches needed (p = 0.31).',
  );
  assert.equal(
    verdict({ ...base, metric: 'clickThrough', difference: 0.001, pValue: 0.9, moreSearches: 0 }),
    'No clear difference between B and A in clicks (p = 0.9): B gets more clicks than A by too little to tell apart.',
  );
  assert.equal(
    verdict({ ...base, metric: 'conversion', difference: 0, pValue: 1, moreSearches: null }),
    'No clear difference between B and A in purchases (p = 1).',
  );
});

test('without searches on both sides nothing is said but that', () => {
  assert.equal(
    verdict({ ...base, metric: 'clickThrough', difference: null, pValue: null }),
    'Too early to tell: B or A has no counted search yet.',
  );
});

test('the service’s own call of significance decides when it gives one', () => {
  assert.match(
    verdict({ ...base, metric: 'clickThrough', difference: 0.1, pValue: 0.049, clear: false }),
    /^No clear difference/,
  );
});

test('the level is 0.05, and a p-value just under it never reads as 0.05', () => {
  assert.match(verdict({ ...base, metric: 'clickThrough', difference: 0.1, pValue: 0.05 }), /No clear/);
  assert.equal(pValueText(0.0496), 'p = 0.0496');
  assert.equal(pValueText(0.012), 'p = 0.012');
  assert.equal(pValueText(0.43), 'p = 0.43');
  assert.equal(pValueText(0.0009), 'p < 0.001');
});
