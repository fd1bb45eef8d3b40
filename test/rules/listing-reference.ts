// A brute-force reference of the rules listing: every rule in memory, filtered
// and sorted exactly as the spec says. The SQL listing must agree with it.
import {
  type ListingFilter,
  normaliseListingSyntax,
  parseListing,
  type Range,
  type SortKey,
} from '../../src/rules/listing-params.js';
import { publishState, type Rule, type RuleContent, targetedDocuments } from '../../src/rules/rule.js';
import type { ListingQuery } from '../../src/rules/schemas.js';
import { allSearchWords, matchesSearch, searchableFields, textKey } from '../../src/rules/text-search.js';

/** The ids of the rules a listing query matches, in listing order. */
export function referenceListing(rules: Rule[], query: Record<string, string | string[]>): string[] {
  // The query as the route's schema passes it on (the reference is given no page or size).
  const { filter, sort } = parseListing(normaliseListingSyntax(query) as ListingQuery);
  if (sort === 'relevance') throw new Error('the reference does not rank by relevance');
  return rules
    .filter((rule) => matches(rule, filter))
    .sort((a, b) => compare(a, b, sort))
    .map((rule) => rule.id);
}

function matches(rule: Rule, filter: ListingFilter): boolean {
  const state = publishState(rule);
  if (filter.publishState && state !== filter.publishState) return false;
  if (filter.published !== undefined && (rule.live !== null) !== filter.published) return false;
  if (filter.contentType && rule.contentType !== filter.contentType) return false;
  if (filter.lastModified && !inRange(rule.lastModified, filter.lastModified)) return false;
  if (filter.creationDate && !inRange(rule.creationDate, filter.creationDate)) return false;
  const contents = rule.live === null ? [rule.staging] : [rule.staging, rule.live];
  const either = (test: (content: RuleContent) => boolean) => contents.some(test);
  if (filter.tags && !either((c) => c.tags.some((tag) => filter.tags!.includes(tag)))) return false;
  if (filter.groups && !either((c) => c.groups.some((group) => filter.groups!.includes(group)))) return false;
  if (filter.types && !filter.types.includes(rule.staging.type)) return false;
  if (filter.targeted) {
    const { value, fieldName } = filter.targeted;
    const targets = (c: RuleContent) =>
      targetedDocuments(c).some((d) => d.value === value && d.fieldName === fieldName);
    if (!either(targets)) return false;
  }
  if (filter.searchWords) {
    // Words of both contents together: a query word may match staging and another live.
    const words = contents.flatMap((c) => [...allSearchWords(searchableFields(c))]);
    if (!matchesSearch(filter.searchWords, words)) return false;
  }
  const { active, expiration } = filter;
  if (active && !either((c) => activeIn(c, active))) return false;
  if (expiration) {
    const ends = (c: RuleContent) =>
      c.conditions.effectiveEnd !== null && inRange(c.conditions.effectiveEnd, expiration);
    if (!either(ends)) return false;
  }
  return true;
}

function activeIn(content: RuleContent, range: Range): boolean {
  const { effectiveStart: start, effectiveEnd: end } = content.conditions;
  return (
    (range.end === undefined || start === null || start <= range.end) &&
    (range.start === undefined || end === null || end >= range.start)
  );
}

function inRange(instant: string, range: Range): boolean {
  return (
    (range.start === undefined || instant >= range.start) && (range.end === undefined || instant <= range.end)
  );
}

function compare(a: Rule, b: Rule, sort: SortKey[]): number {
  for (const { property, descending } of sort) {
    const order = compareValues(sortValue(a, property), sortValue(b, property));
    if (order !== 0) return descending ? -order : order;
  }
  return compareValues(a.id, b.id);
}

function sortValue(rule: Rule, property: SortKey['property']): string | number {
  const { staging } = rule;
  switch (property) {
    case 'name':
      return textKey(staging.name);
    case 'type':
      return staging.type;
    case 'precedence':
      return staging.precedence;
    case 'creationDate':
      return rule.creationDate;
    case 'lastModified':
      return rule.lastModified;
    case 'createdBy':
      return rule.createdBy;
    case 'lastModifiedBy':
      return rule.lastModifiedBy;
    case 'publishState':
      return publishState(rule);
    case 'effectiveStart':
      return staging.conditions.effectiveStart ?? '';
    case 'effectiveEnd':
      return staging.conditions.effectiveEnd ?? '~';
  }
}

// Text compares by UTF-8 bytes, as the database does.
function compareValues(a: string | number, b: string | number): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return Buffer.compare(Buffer.from(String(a)), Buffer.from(String(b)));
}
