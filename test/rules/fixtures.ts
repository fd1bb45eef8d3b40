// Valid rule contents for tests, built through the same validation clients go through.
import fc from 'fast-check';
import type { RuleContent } from '../../src/rules/rule.js';
import { validateRuleContent } from '../../src/rules/rule-validation.js';

export const minimalBodies = {
  blockList: { type: 'blockList', name: 'Block', fieldName: 'id', fieldValues: ['P1'] },
  boostList: { type: 'boostList', name: 'Boost', fieldName: 'id', fieldValues: ['P1'] },
  buryList: { type: 'buryList', name: 'Bury', fieldName: 'id', fieldValues: ['P1'] },
  pinned: { type: 'pinned', name: 'Pin', pinnedValues: [{ value: 'P1', position: 1 }] },
  redirect: { type: 'redirect', name: 'Redirect', url: 'https://shop.example/sale' },
  banner: { type: 'banner', name: 'Banner', bannerUrl: 'https://cdn.example/b.png' },
  filterList: { type: 'filterList', name: 'Filter', fieldName: 'category', fieldValues: ['Mugs'] },
  boostAttributes: {
    type: 'boostAttributes',
    name: 'Boost by brand',
    boosts: [{ fieldName: 'brand', value: 'Acme', weight: 5 }],
  },
  setParams: { type: 'setParams', name: 'Params', params: [{ key: 'rows', value: '5' }] },
  responseValue: {
    type: 'responseValue',
    name: 'Values',
    responseValues: [{ key: 'hero', value: { title: 'Sale' } }],
  },
  setFacetList: { type: 'setFacetList', name: 'Facets', facetFields: ['brand', 'category'] },
} as const;

/** A normalised content from a body; fails the test when the body is invalid. */
export function content(body: Record<string, unknown>): RuleContent {
  const result = validateRuleContent(body);
  if (!result.ok) throw new Error(`invalid fixture: ${JSON.stringify(result.errors)}`);
  return result.value;
}

const word = fc.constantFrom('laptop', 'Laptops', 'écran', 'TV', 'sale', 'P1', 'P2', 'P3');
const instant = fc.option(
  fc.date({
    min: new Date('2025-01-01T00:00:00Z'),
    max: new Date('2027-01-01T00:00:00Z'),
    noInvalidDate: true,
  }),
  { nil: null },
);
const conditions = fc
  .record({ queries: fc.array(word, { maxLength: 2 }), start: instant, end: instant })
  .map(({ queries, start, end }) => {
    const [from, to] = start && end && end < start ? [end, start] : [start, end];
    return { queries, effectiveStart: from?.toISOString() ?? null, effectiveEnd: to?.toISOString() ?? null };
  });
const values = fc.uniqueArray(fc.constantFrom('P1', 'P2', 'P3', 'P4'), { minLength: 1, maxLength: 3 });
const common = {
  name: fc.string({ minLength: 1, maxLength: 20 }).filter((name) => name.trim() !== ''),
  tags: fc.array(word, { maxLength: 3 }),
  precedence: fc.integer({ min: -5, max: 5 }),
  conditions,
};

/** Valid bodies of every type, drawn from small pools so that rules often overlap. */
export const ruleBody: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.record({
    ...common,
    type: fc.constant('blockList'),
    fieldName: fc.constantFrom('id', 'sku'),
    fieldValues: values,
  }),
  fc.record({
    ...common,
    type: fc.constant('boostList'),
    fieldName: fc.constantFrom('id', 'sku'),
    fieldValues: values,
  }),
  fc.record({ ...common, type: fc.constant('buryList'), fieldName: fc.constant('id'), fieldValues: values }),
  fc.record({
    ...common,
    type: fc.constant('pinned'),
    pinnedValues: fc
      .uniqueArray(fc.constantFrom('P1', 'P2', 'P3'), { minLength: 1, maxLength: 3 })
      .chain((pins) =>
        fc
          .shuffledSubarray([1, 2, 3, 4], { minLength: pins.length, maxLength: pins.length })
          .map((positions) => pins.map((value, i) => ({ value, position: positions[i]! }))),
      ),
  }),
  fc.record({
    ...common,
    type: fc.constant('redirect'),
    url: fc.constantFrom('https://a.example', 'http://b.example/x'),
  }),
  fc.record({ ...common, type: fc.constant('banner'), bannerUrl: fc.constant('https://cdn.example/b.png') }),
  fc.record({
    ...common,
    type: fc.constant('filterList'),
    fieldName: fc.constant('id'),
    fieldValues: values,
  }),
  fc.record({
    ...common,
    type: fc.constant('boostAttributes'),
    boosts: fc.array(
      fc.oneof(
        fc.record({
          fieldName: fc.constant('id'),
          value: fc.constantFrom('P1', 'P2'),
          weight: fc.constantFrom(-2, 3),
        }),
        fc.record({ query: fc.constantFrom('brand:acme', 'id:(P1 OR P2)'), weight: fc.constantFrom(-1, 4) }),
      ),
      { minLength: 1, maxLength: 2 },
    ),
  }),
  fc.record({
    ...common,
    type: fc.constant('setParams'),
    params: fc.array(
      fc.record({
        key: fc.constantFrom('rows', 'mm'),
        value: fc.constantFrom('5', '10'),
        policy: fc.constantFrom('replace', 'append', 'default'),
      }),
      { minLength: 1, maxLength: 2 },
    ),
  }),
  fc.record({
    ...common,
    type: fc.constant('responseValue'),
    responseValues: fc.constantFrom(
      [{ key: 'hero', value: 'Sale' }],
      [{ key: 'hero', value: { a: [1, null] } }],
    ),
  }),
  fc.record({
    ...common,
    type: fc.constant('setFacetList'),
    facetFields: fc.shuffledSubarray(['brand', 'category'], { minLength: 1 }),
  }),
);

export const ruleContent: fc.Arbitrary<RuleContent> = ruleBody.map(content);
