import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  isMarkedForDeletion,
  publishState,
  ruleTargetedDocuments,
  targetedDocuments,
} from '../../src/rules/rule.js';
import { content, minimalBodies, ruleContent } from './fixtures.js';

/** The same value with the keys of every object in a new order. */
function shuffledKeys(value: unknown, order: (keys: string[]) => string[]): unknown {
  if (Array.isArray(value)) return value.map((item) => shuffledKeys(item, order));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  const byKey = new Map(entries);
  return Object.fromEntries(
    order(entries.map(([key]) => key)).map((key) => [key, shuffledKeys(byKey.get(key), order)]),
  );
}

describe('publishState', () => {
  const banner = content(minimalBodies.banner);

  test('is DRAFT without live content', () => {
    assert.equal(publishState({ staging: banner, live: null }), 'DRAFT');
  });

  test('is PUBLISHED when staging equals live and PUBLISHED_WITH_DRAFT_EDITS when it differs', () => {
    assert.equal(publishState({ staging: banner, live: structuredClone(banner) }), 'PUBLISHED');
    const edited = { ...banner, tags: ['sale'] };
    assert.equal(publishState({ staging: edited, live: banner }), 'PUBLISHED_WITH_DRAFT_EDITS');
  });

  test('treats a reordered list as an edit', () => {
    const two = content({ ...minimalBodies.blockList, fieldValues: ['A', 'B'] });
    const swapped = { ...two, fieldValues: ['B', 'A'] };
    assert.equal(publishState({ staging: swapped, live: two }), 'PUBLISHED_WITH_DRAFT_EDITS');
  });

  test('is PUBLISHED whatever the order of the keys of the two contents', () => {
    fc.assert(
      fc.property(ruleContent, fc.func(fc.integer()), (staging, rank) => {
        const order = (keys: string[]) => [...keys].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
        const live = shuffledKeys(staging, order) as typeof staging;
        assert.equal(publishState({ staging, live }), 'PUBLISHED');
      }),
    );
  });

  test('marks for deletion only a published rule whose staging is deleted', () => {
    const deleted = { ...banner, deleted: true };
    assert.equal(isMarkedForDeletion({ staging: deleted, live: banner }), true);
    assert.equal(isMarkedForDeletion({ staging: deleted, live: null }), false);
    assert.equal(isMarkedForDeletion({ staging: banner, live: banner }), false);
  });
});

describe('targetedDocuments', () => {
  test('lists the values of block, boost and bury lists in their field', () => {
    for (const type of ['blockList', 'boostList', 'buryList'] as const) {
      const list = content({ ...minimalBodies[type], fieldName: 'sku', fieldValues: ['S1', 'S2', 'S1'] });
      assert.deepEqual(targetedDocuments(list), [
        { fieldName: 'sku', value: 'S1' },
        { fieldName: 'sku', value: 'S2' },
      ]);
    }
  });

  test('lists pinned values in the pinned field, id by default', () => {
    const pins = [
      { value: 'P1', position: 2 },
      { value: 'P2', position: 1 },
    ];
    assert.deepEqual(targetedDocuments(content({ ...minimalBodies.pinned, pinnedValues: pins })), [
      { fieldName: 'id', value: 'P1' },
      { fieldName: 'id', value: 'P2' },
    ]);
  });

  test('is empty for redirects and banners', () => {
    assert.deepEqual(targetedDocuments(content(minimalBodies.redirect)), []);
    assert.deepEqual(targetedDocuments(content(minimalBodies.banner)), []);
  });

  test('joins staging and live without repeating a document', () => {
    const staging = content({ ...minimalBodies.blockList, fieldValues: ['A', 'B'] });
    const live = content({ ...minimalBodies.blockList, fieldValues: ['B', 'C'] });
    assert.deepEqual(
      ruleTargetedDocuments({ staging, live }).map(({ value }) => value),
      ['A', 'B', 'C'],
    );
  });
});
