import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { FieldError, Validation } from '../../src/rules/rule.js';
import {
  normaliseRuleType,
  validateNewRule,
  validateRuleContent,
  validateRuleUpdate,
} from '../../src/rules/rule-validation.js';
import { minimalBodies, ruleContent } from './fixtures.js';

function errorsOf<T>(result: Validation<T>): FieldError[] {
  assert.equal(result.ok, false, 'expected the body to be rejected');
  return result.ok ? [] : result.errors;
}

function fieldsOf<T>(result: Validation<T>): string[] {
  return errorsOf(result).map(({ field }) => field);
}

describe('validateRuleContent', () => {
  for (const [type, body] of Object.entries(minimalBodies)) {
    test(`accepts a minimal ${type}`, () => {
      const result = validateRuleContent(body);
      assert.ok(result.ok, JSON.stringify(result));
      assert.equal(result.value.type, type);
    });
  }

  const required: [keyof typeof minimalBodies, string][] = [
    ['blockList', 'fieldName'],
    ['blockList', 'fieldValues'],
    ['boostList', 'fieldValues'],
    ['buryList', 'fieldName'],
    ['pinned', 'pinnedValues'],
    ['redirect', 'url'],
    ['banner', 'bannerUrl'],
    ['banner', 'name'],
  ];
  for (const [type, field] of required) {
    test(`rejects a ${type} without ${field}, naming it`, () => {
      const { [field]: _left, ...body } = minimalBodies[type] as Record<string, unknown>;
      assert.deepEqual(errorsOf(validateRuleContent(body)), [{ field, message: `${field} is required` }]);
    });
  }

  const foreign: [keyof typeof minimalBodies, string, unknown][] = [
    ['blockList', 'url', 'https://x.example'],
    ['blockList', 'boost', 5],
    ['boostList', 'pinnedValues', [{ value: 'P1', position: 1 }]],
    ['buryList', 'zone', 'top'],
    ['pinned', 'fieldValues', ['P1']],
    ['redirect', 'fieldName', 'id'],
    ['banner', 'url', 'https://x.example'],
  ];
  for (const [type, field, value] of foreign) {
    test(`rejects ${field} on a ${type} as a field that does not fit the type`, () => {
      assert.deepEqual(errorsOf(validateRuleContent({ ...minimalBodies[type], [field]: value })), [
        { field, message: `${field} is not a field of a ${type} rule` },
      ]);
    });
  }

  test('rejects a field no rule has', () => {
    assert.deepEqual(fieldsOf(validateRuleContent({ ...minimalBodies.banner, colour: 'red' })), ['colour']);
  });

  for (const url of ['/sale', 'ftp://x.example/f', 'javascript:alert(1)', 'mailto:a@x.example', 'https://']) {
    test(`rejects ${JSON.stringify(url)} as a redirect or banner URL`, () => {
      assert.deepEqual(fieldsOf(validateRuleContent({ ...minimalBodies.redirect, url })), ['url']);
      assert.deepEqual(fieldsOf(validateRuleContent({ ...minimalBodies.banner, bannerUrl: url })), [
        'bannerUrl',
      ]);
    });
  }

  test('rejects a pin position below 1, naming the pin', () => {
    const body = {
      ...minimalBodies.pinned,
      pinnedValues: [
        { value: 'A', position: 1 },
        { value: 'B', position: 0 },
      ],
    };
    assert.deepEqual(errorsOf(validateRuleContent(body)), [
      { field: 'pinnedValues[1].position', message: 'pinnedValues[1].position must be ≥ 1' },
    ]);
  });

  test('rejects two pins on one position and one value pinned twice in a rule', () => {
    const pinnedValues = [
      { value: 'A', position: 1 },
      { value: 'B', position: 1 },
      { value: 'A', position: 2 },
    ];
    assert.deepEqual(fieldsOf(validateRuleContent({ ...minimalBodies.pinned, pinnedValues })), [
      'pinnedValues[1].position',
      'pinnedValues[2].value',
    ]);
  });

  for (const boost of [0, -1]) {
    test(`rejects a boost of ${boost} on boost and bury lists`, () => {
      assert.deepEqual(fieldsOf(validateRuleContent({ ...minimalBodies.boostList, boost })), ['boost']);
      assert.deepEqual(fieldsOf(validateRuleContent({ ...minimalBodies.buryList, boost })), ['boost']);
    });
  }

  test('names nested fields in dotted form', () => {
    const body = {
      ...minimalBodies.blockList,
      conditions: { queries: 'laptops', fieldValues: [{ fieldName: 'brand' }] },
    };
    assert.deepEqual(fieldsOf(validateRuleContent(body)), [
      'conditions.queries',
      'conditions.fieldValues[0].values',
    ]);
  });

  test('rejects an effective range that ends before it starts, and dates without a time zone', () => {
    const reversed = { effectiveStart: '2026-02-01T00:00:00Z', effectiveEnd: '2026-01-01T00:00:00Z' };
    assert.deepEqual(fieldsOf(validateRuleContent({ ...minimalBodies.redirect, conditions: reversed })), [
      'conditions.effectiveEnd',
    ]);
    const local = { effectiveStart: '2026-02-01T00:00:00' };
    assert.deepEqual(fieldsOf(validateRuleContent({ ...minimalBodies.redirect, conditions: local })), [
      'conditions.effectiveStart',
    ]);
  });

  test('accepts type names in any case and answers them in camelCase', () => {
    for (const name of ['BLOCKLIST', 'blocklist', 'BlockList']) {
      const result = validateRuleContent({ ...minimalBodies.blockList, type: name });
      assert.ok(result.ok && result.value.type === 'blockList');
    }
    assert.deepEqual(normaliseRuleType('BANNER'), { ok: true, value: 'banner' });
  });

  test('rejects an unknown type naming the field it came from', () => {
    assert.deepEqual(fieldsOf(validateRuleContent({ ...minimalBodies.banner, type: 'carousel' })), ['type']);
    assert.deepEqual(fieldsOf(normaliseRuleType('carousel', 'types')), ['types']);
  });

  test('applies the defaults of the rule type', () => {
    const boost = validateRuleContent(minimalBodies.boostList);
    const pinned = validateRuleContent(minimalBodies.pinned);
    const banner = validateRuleContent(minimalBodies.banner);
    assert.ok(boost.ok && pinned.ok && banner.ok);
    assert.equal(boost.value.type === 'boostList' && boost.value.boost, 10);
    assert.equal(pinned.value.type === 'pinned' && pinned.value.fieldName, 'id');
    assert.equal(banner.value.type === 'banner' && banner.value.zone, 'top');
    assert.deepEqual(
      { ...banner.value, type: undefined, bannerUrl: undefined, zone: undefined },
      {
        type: undefined,
        bannerUrl: undefined,
        zone: undefined,
        name: 'Banner',
        description: '',
        tags: [],
        groups: [],
        segments: [],
        precedence: 0,
        deleted: false,
        conditions: {
          queries: [],
          fieldValues: [],
          queryProfiles: [],
          effectiveStart: null,
          effectiveEnd: null,
        },
      },
    );
  });

  test('writes effective dates in one canonical UTC form', () => {
    const conditions = { effectiveStart: '2026-02-01T01:00:00+01:00' };
    const result = validateRuleContent({ ...minimalBodies.redirect, conditions });
    assert.ok(result.ok);
    assert.equal(result.value.conditions.effectiveStart, '2026-02-01T00:00:00.000Z');
  });

  test('ignores the read-only fields of an answered rule sent back', () => {
    const answered = {
      ...minimalBodies.redirect,
      id: '550e8400-e29b-41d4-a716-446655440000',
      createdBy: 'client:ci',
      publishState: 'PUBLISHED',
      liveContent: null,
      conflicts: [],
      migratedId: null,
    };
    assert.deepEqual(validateRuleContent(answered), validateRuleContent(minimalBodies.redirect));
  });

  test('accepts every normalised content unchanged, so GET then PUT back changes nothing', () => {
    fc.assert(
      fc.property(ruleContent, (content) => {
        assert.deepEqual(validateRuleContent(content), { ok: true, value: content });
      }),
    );
  });
});

describe('validateNewRule and validateRuleUpdate', () => {
  test('takes externalId, contentType and migratedId at creation, RULE by default', () => {
    const plain = validateNewRule(minimalBodies.banner);
    assert.ok(plain.ok);
    assert.deepEqual(
      [plain.value.externalId, plain.value.contentType, plain.value.migratedId],
      [null, 'RULE', null],
    );
    const full = validateNewRule({
      ...minimalBodies.banner,
      externalId: 'b-1',
      contentType: 'QUERY_REWRITE',
    });
    assert.ok(full.ok && full.value.externalId === 'b-1' && full.value.contentType === 'QUERY_REWRITE');
    assert.deepEqual(fieldsOf(validateNewRule({ ...minimalBodies.banner, contentType: 'OTHER' })), [
      'contentType',
    ]);
  });

  const stored = { type: 'banner', externalId: 'b-1', contentType: 'RULE' } as const;

  test('lets an update leave out the type or repeat it in any case', () => {
    const { type: _type, ...withoutType } = minimalBodies.banner;
    assert.ok(validateRuleUpdate(withoutType, stored).ok);
    assert.ok(validateRuleUpdate({ ...minimalBodies.banner, type: 'BANNER', externalId: 'b-1' }, stored).ok);
  });

  test('rejects an update that changes the type, externalId or contentType', () => {
    assert.deepEqual(fieldsOf(validateRuleUpdate(minimalBodies.redirect, stored)), ['type']);
    assert.deepEqual(fieldsOf(validateRuleUpdate({ ...minimalBodies.banner, externalId: 'b-2' }, stored)), [
      'externalId',
    ]);
    const rewrite = { ...minimalBodies.banner, contentType: 'QUERY_REWRITE' };
    assert.deepEqual(fieldsOf(validateRuleUpdate(rewrite, stored)), ['contentType']);
  });
});
