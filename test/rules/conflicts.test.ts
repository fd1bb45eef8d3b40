import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { type ConflictCandidate, findConflicts } from '../../src/rules/conflicts.js';
import { content, minimalBodies, ruleContent } from './fixtures.js';

let counter = 0;
function rule(body: Record<string, unknown>): ConflictCandidate {
  counter += 1;
  return { id: `rule-${counter}`, staging: content(body) };
}

const block = (values: string[], extra: Record<string, unknown> = {}) =>
  rule({ ...minimalBodies.blockList, name: 'Block', fieldValues: values, ...extra });
const boost = (values: string[], extra: Record<string, unknown> = {}) =>
  rule({ ...minimalBodies.boostList, name: 'Boost', fieldValues: values, ...extra });
const bury = (values: string[]) => rule({ ...minimalBodies.buryList, name: 'Bury', fieldValues: values });
const pin = (pins: [string, number][], extra: Record<string, unknown> = {}) =>
  rule({
    ...minimalBodies.pinned,
    name: 'Pin',
    pinnedValues: pins.map(([value, position]) => ({ value, position })),
    ...extra,
  });
const redirect = (url: string) => rule({ ...minimalBodies.redirect, name: 'Redirect', url });

function reasons(self: ConflictCandidate, ...others: ConflictCandidate[]): string[] {
  return findConflicts(self, others).map(({ reason }) => reason);
}

describe('findConflicts', () => {
  test('reports a block against a pin of the same value, from either side', () => {
    const blocker = block(['P1', 'P2']);
    const pinner = pin([['P1', 1]]);
    assert.deepEqual(findConflicts(pinner, [blocker]), [
      { id: blocker.id, name: 'Block', type: 'blockList', reason: 'blocks id "P1", which this rule pins' },
    ]);
    assert.deepEqual(reasons(blocker, pinner), ['pins id "P1", which this rule blocks']);
  });

  test('reports a block against a boost of the same value', () => {
    assert.deepEqual(reasons(boost(['P1']), block(['P1'])), ['blocks id "P1", which this rule boosts']);
  });

  test('reports a boost against a bury of the same value', () => {
    assert.deepEqual(reasons(bury(['P1', 'P2']), boost(['P2', 'P1'])), [
      'boosts id "P1", "P2", which this rule buries',
    ]);
  });

  test('reports two pins on one position', () => {
    assert.deepEqual(reasons(pin([['A', 1]]), pin([['B', 1]])), [
      'pins id "B" at position 1, where this rule pins id "A"',
    ]);
  });

  test('reports one document pinned at two positions', () => {
    assert.deepEqual(reasons(pin([['A', 1]]), pin([['A', 3]])), [
      'pins id "A" at position 3, where this rule pins it at 1',
    ]);
  });

  test('reports two redirects', () => {
    assert.deepEqual(reasons(redirect('https://a.example'), redirect('https://b.example')), [
      'redirects to https://b.example, where this rule redirects to https://a.example',
    ]);
  });

  test('shortens a long list of shared values', () => {
    const values = ['A', 'B', 'C', 'D', 'E'];
    assert.deepEqual(reasons(block(values), boost(values)), [
      'boosts id "A", "B", "C" and 2 more, which this rule blocks',
    ]);
  });

  test('reports every reason between two rules in one entry', () => {
    const pinner = pin([
      ['A', 1],
      ['B', 2],
    ]);
    assert.deepEqual(reasons(pinner, pin([['C', 1]]), pin([['B', 5]])), [
      'pins id "C" at position 1, where this rule pins id "A"',
      'pins id "B" at position 5, where this rule pins it at 2',
    ]);
  });

  test('matches queries by key, and a rule without queries against every query', () => {
    const laptops = { conditions: { queries: ['Laptops '] } };
    assert.equal(
      reasons(block(['P1'], laptops), boost(['P1'], { conditions: { queries: ['laptops'] } })).length,
      1,
    );
    assert.equal(reasons(block(['P1'], laptops), boost(['P1'])).length, 1);
  });

  test('ignores rules whose queries are disjoint', () => {
    const phones = { conditions: { queries: ['phones', 'mobiles'] } };
    assert.deepEqual(
      reasons(block(['P1'], { conditions: { queries: ['laptops'] } }), boost(['P1'], phones)),
      [],
    );
  });

  test('ignores rules whose effective ranges are disjoint, and counts a shared instant as overlap', () => {
    const january = {
      conditions: { effectiveStart: '2026-01-01T00:00:00Z', effectiveEnd: '2026-01-31T00:00:00Z' },
    };
    const march = { conditions: { effectiveStart: '2026-03-01T00:00:00Z', effectiveEnd: null } };
    const fromEnd = { conditions: { effectiveStart: '2026-01-31T00:00:00Z' } };
    assert.deepEqual(reasons(block(['P1'], january), boost(['P1'], march)), []);
    assert.equal(reasons(block(['P1'], january), boost(['P1'], fromEnd)).length, 1);
  });

  test('ignores the same value in different fields', () => {
    assert.deepEqual(reasons(block(['P1'], { fieldName: 'sku' }), boost(['P1'])), []);
    assert.deepEqual(reasons(block(['P1']), pin([['P1', 1]], { fieldName: 'sku' })), []);
  });

  test('ignores actions that pull the same way and rules that agree', () => {
    assert.deepEqual(reasons(block(['P1']), bury(['P1'])), []);
    assert.deepEqual(reasons(boost(['P1']), pin([['P1', 1]])), []);
    assert.deepEqual(reasons(pin([['A', 1]]), pin([['A', 1]])), []);
    assert.deepEqual(reasons(block(['P1']), block(['P1'])), []);
  });

  test('leaves out the rule itself and rules marked for deletion', () => {
    const blocker = block(['P1']);
    const deleted = { ...boost(['P1']), staging: { ...boost(['P1']).staging, deleted: true } };
    assert.deepEqual(findConflicts(blocker, [blocker, deleted]), []);
  });

  test('is symmetric: a conflicts with b exactly when b conflicts with a', () => {
    fc.assert(
      fc.property(ruleContent, ruleContent, (a, b) => {
        const first = { id: 'a', staging: a };
        const second = { id: 'b', staging: b };
        assert.equal(findConflicts(first, [second]).length, findConflicts(second, [first]).length);
      }),
    );
  });
});
