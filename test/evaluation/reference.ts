// A brute-force evaluation of rules, written from the documented semantics without the
// compiled index: every rule checked against every condition, one by one.
import fc from 'fast-check';
import type { EvaluatedRule, EvaluationInput } from '../../src/evaluation/evaluation.js';
import type { RuleContent } from '../../src/rules/rule.js';
import { termKey } from '../../src/text/term-key.js';
import { content } from '../rules/fixtures.js';

export function referenceFired(rules: EvaluatedRule[], input: EvaluationInput): EvaluatedRule[] {
  const key = input.q.trim() === '*:*' ? '' : termKey(input.q);
  const queryWords = key === '' ? [] : key.split(' ');
  const at = input.at.getTime();
  const fired = rules.filter(({ content: c }) => {
    const { conditions } = c;
    const queryMatches =
      conditions.queryMatch === 'empty'
        ? key === ''
        : conditions.queries.length === 0 ||
          conditions.queries.some((q) => {
            const k = termKey(q);
            if (conditions.queryMatch === 'startsWith') {
              const words = k.split(' ');
              return words.every((w, i) => queryWords[i] === w);
            }
            if (conditions.queryMatch !== 'contains') return k === key;
            return k === '' || k.split(' ').every((w) => queryWords.includes(w));
          });
    const start = conditions.effectiveStart ? Date.parse(conditions.effectiveStart) : -Infinity;
    const end = conditions.effectiveEnd ? Date.parse(conditions.effectiveEnd) : Infinity;
    return (
      queryMatches &&
      start <= at &&
      at <= end &&
      (c.segments.length === 0 || c.segments.some((s) => input.segments.includes(s))) &&
      (conditions.queryProfiles.length === 0 ||
        conditions.queryProfiles.some((p) => input.queryProfiles.includes(p))) &&
      conditions.fieldValues.every((fv) =>
        input.filters.some((f) => f.fieldName === fv.fieldName && fv.values.includes(f.value)),
      )
    );
  });
  return fired.sort((a, b) => {
    if (a.content.precedence !== b.content.precedence) return b.content.precedence - a.content.precedence;
    if (a.creationDate !== b.creationDate) return a.creationDate < b.creationDate ? -1 : 1;
    return a.id < b.id ? -1 : 1;
  });
}

/** The merged effect of fired rules (in precedence order), as documented. */
export function referenceEffect(fired: EvaluatedRule[]) {
  const contents = fired.map((r) => r.content);
  const blocked: Array<{ fieldName: string; values: string[] }> = [];
  for (const c of contents) {
    if (c.type !== 'blockList') continue;
    let entry = blocked.find((b) => b.fieldName === c.fieldName);
    if (!entry) {
      entry = { fieldName: c.fieldName, values: [] };
      blocked.push(entry);
    }
    for (const v of c.fieldValues) if (!entry.values.includes(v)) entry.values.push(v);
  }
  const isBlocked = (field: string, value: string) =>
    blocked.some((b) => b.fieldName === field && b.values.includes(value));
  const pins: Array<{ value: string; position: number }> = [];
  for (const c of contents) {
    if (c.type !== 'pinned') continue;
    for (const pin of c.pinnedValues) {
      if (isBlocked(c.fieldName, pin.value)) continue;
      if (pins.some((p) => p.position === pin.position || p.value === pin.value)) continue;
      pins.push({ value: pin.value, position: pin.position });
    }
  }
  // Boosts by attribute join the boosts and buries in rule order, beside boost and bury lists.
  const attributes = (sign: 1 | -1) =>
    contents.flatMap((c) =>
      c.type === 'boostList' && sign === 1
        ? c.fieldValues.map((value) => ({ fieldName: c.fieldName, value, weight: c.boost }))
        : c.type === 'buryList' && sign === -1
          ? c.fieldValues.map((value) => ({ fieldName: c.fieldName, value, weight: c.boost }))
          : c.type === 'boostAttributes'
            ? c.boosts
                .filter((b) => b.query === undefined && Math.sign(b.weight) === sign)
                .map((b) => ({ fieldName: b.fieldName!, value: b.value!, weight: Math.abs(b.weight) }))
            : [],
    );
  const redirect = contents.find((c) => c.type === 'redirect');
  const facets = contents.find((c) => c.type === 'setFacetList');
  const responseValues: Record<string, unknown> = {};
  for (const c of contents) {
    if (c.type !== 'responseValue') continue;
    for (const { key, value } of c.responseValues) if (!(key in responseValues)) responseValues[key] = value;
  }
  // A key's replace, default or remove is the first rule's to set so; appends all apply, after.
  const owner = new Map<string, RuleContent>();
  const set: Array<{ key: string; value: string; policy: string }> = [];
  for (const c of contents) {
    if (c.type !== 'setParams') continue;
    for (const p of c.params) {
      if (p.policy === 'append') continue;
      if ((owner.get(p.key) ?? c) !== c) continue;
      owner.set(p.key, c);
      set.push({ key: p.key, value: p.value, policy: p.policy });
    }
  }
  const appended = contents.flatMap((c) =>
    c.type === 'setParams'
      ? c.params
          .filter((p) => p.policy === 'append')
          .map(({ key, value, policy }) => ({ key, value, policy }))
      : [],
  );
  return {
    blocked,
    boosts: attributes(1),
    buries: attributes(-1),
    pins: pins.sort((a, b) => a.position - b.position),
    redirect: redirect?.type === 'redirect' ? redirect.url : null,
    banners: contents.flatMap((c) => (c.type === 'banner' ? [{ url: c.bannerUrl, zone: c.zone }] : [])),
    filters: contents.flatMap((c) =>
      c.type === 'filterList' ? [{ fieldName: c.fieldName, values: c.fieldValues }] : [],
    ),
    queryBoosts: contents.flatMap((c) =>
      c.type === 'boostAttributes'
        ? c.boosts.flatMap((b) => (b.query === undefined ? [] : [{ query: b.query, weight: b.weight }]))
        : [],
    ),
    params: [...set, ...appended],
    responseValues,
    facets: facets?.type === 'setFacetList' ? facets.facetFields : null,
  };
}

export const AT = new Date('2026-06-01T00:00:00Z');
const word = fc.constantFrom('laptop', 'Laptop', 'bag', 'café', 'CAFE', 'red');
const phrase = fc.array(word, { minLength: 1, maxLength: 3 }).map((words) => words.join(' '));
const labels = fc.subarray(['a', 'b', 'c'], { maxLength: 2 });
const values = fc.uniqueArray(fc.constantFrom('P1', 'P2', 'P3', 'P4'), { minLength: 1, maxLength: 3 });
const field = fc.constantFrom('id', 'brand');
const instant = fc.option(
  fc.constantFrom('2026-01-01T00:00:00Z', '2026-06-01T00:00:00Z', '2026-12-01T00:00:00Z'),
  {
    nil: null,
  },
);

const typed = fc.oneof(
  fc.record({ type: fc.constant('blockList'), fieldName: field, fieldValues: values }),
  fc.record({
    type: fc.constant('boostList'),
    fieldName: field,
    fieldValues: values,
    boost: fc.constantFrom(1, 2.5, 10),
  }),
  fc.record({
    type: fc.constant('buryList'),
    fieldName: field,
    fieldValues: values,
    boost: fc.constantFrom(1, 5),
  }),
  fc.record({
    type: fc.constant('pinned'),
    fieldName: field,
    // Values and positions are each unique within a rule (validation refuses repeats).
    pinnedValues: fc
      .tuple(
        fc.shuffledSubarray(['P1', 'P2', 'P3', 'P4'], { minLength: 1, maxLength: 3 }),
        fc.shuffledSubarray([1, 2, 3], { minLength: 3, maxLength: 3 }),
      )
      .map(([pinned, positions]) => pinned.map((value, i) => ({ value, position: positions[i]! }))),
  }),
  fc.record({
    type: fc.constant('redirect'),
    url: fc.constantFrom('https://a.example/', 'https://b.example/'),
  }),
  fc.record({
    type: fc.constant('banner'),
    bannerUrl: fc.constant('https://c.example/b.png'),
    zone: fc.constantFrom('top', 'side'),
  }),
  fc.record({ type: fc.constant('filterList'), fieldName: field, fieldValues: values }),
  fc.record({
    type: fc.constant('boostAttributes'),
    boosts: fc.array(
      fc.oneof(
        fc.record({
          fieldName: field,
          value: fc.constantFrom('P1', 'P2'),
          weight: fc.constantFrom(-3, 2, 5),
        }),
        fc.record({ query: fc.constantFrom('brand:acme', 'id:(P1 OR P3)'), weight: fc.constantFrom(-1, 4) }),
      ),
      { minLength: 1, maxLength: 3 },
    ),
  }),
  fc.record({
    type: fc.constant('setParams'),
    params: fc.array(
      fc
        .record({
          key: fc.constantFrom('rows', 'mm', 'fq'),
          n: fc.constantFrom('1', '5'),
          policy: fc.constantFrom('replace', 'append', 'default'),
        })
        .map(({ key, n, policy }) => ({ key, value: key === 'fq' ? `id:P${n}` : n, policy })),
      { minLength: 1, maxLength: 3 },
    ),
  }),
  fc.record({
    type: fc.constant('responseValue'),
    responseValues: fc
      .uniqueArray(fc.constantFrom('hero', 'theme', 'page'), { minLength: 1, maxLength: 2 })
      .chain((keys) =>
        fc.tuple(
          ...keys.map((key) =>
            fc.record({ key: fc.constant(key), value: fc.constantFrom('a', 1, { x: [true] }) }),
          ),
        ),
      ),
  }),
  fc.record({
    type: fc.constant('setFacetList'),
    facetFields: fc.shuffledSubarray(['brand', 'category', 'price'], { minLength: 1 }),
  }),
);

/** A random valid rule content, through the same validation clients' bodies go through. */
export const ruleContent: fc.Arbitrary<RuleContent> = fc
  .record({
    typed,
    name: fc.constantFrom('One', 'Two', 'Three'),
    precedence: fc.integer({ min: 0, max: 2 }),
    segments: labels,
    queries: fc.array(phrase, { maxLength: 2 }),
    queryMatch: fc.constantFrom(undefined, 'is', 'contains', 'startsWith', 'empty'),
    queryProfiles: labels,
    fieldValues: fc.array(fc.record({ fieldName: field, values }), { maxLength: 1 }),
    start: instant,
    end: instant,
  })
  .map((r) =>
    content({
      ...r.typed,
      name: r.name,
      precedence: r.precedence,
      segments: r.segments,
      conditions: {
        queries: r.queryMatch === 'empty' ? [] : r.queries,
        ...(r.queryMatch ? { queryMatch: r.queryMatch } : {}),
        queryProfiles: r.queryProfiles,
        fieldValues: r.fieldValues,
        effectiveStart: r.start,
        effectiveEnd: r.start && r.end && r.end < r.start ? r.start : r.end,
      },
    }),
  );

export const evaluationInput: fc.Arbitrary<EvaluationInput> = fc.record({
  q: fc.oneof(
    fc.array(word, { maxLength: 3 }).map((words) => words.join('  ')),
    fc.constant('*:*'),
  ),
  at: fc.constant(AT),
  segments: labels,
  queryProfiles: labels,
  filters: fc.array(fc.record({ fieldName: field, value: fc.constantFrom('P1', 'P2', 'P3', 'P4') }), {
    maxLength: 2,
  }),
  explain: fc.boolean(),
});
