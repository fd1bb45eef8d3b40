// Words for the listing's `searchQuery`: what a rule can be found by, and how a
// query's words match them.
import { searchWords } from '../listing/search-words.js';
import { termKey } from '../text/term-key.js';
import type { RuleContent } from './rule.js';

export { matchesSearch, searchWords } from '../listing/search-words.js';

/**
 * A text reduced to its key: NFKC, trimmed, inner whitespace collapsed, case-folded,
 * diacritics removed (`Électrique ` → `electrique`): the typeahead's term key, so "the same
 * query" means the same thing everywhere.
 */
export { termKey as textKey };

/** What a content can be found by, per field, so that relevance can weigh the name above the rest. */
export interface SearchableFields {
  name: string[];
  description: string[];
  tags: string[];
  queries: string[];
  values: string[];
}

/** The words of each searchable field of a content, repeated words kept (relevance counts them). */
export function searchableFields(content: RuleContent): SearchableFields {
  return {
    name: searchWords(content.name),
    description: searchWords(content.description),
    tags: content.tags.flatMap(searchWords),
    queries: content.conditions.queries.flatMap(searchWords),
    values: typeValues(content).flatMap(searchWords),
  };
}

// "The type's values": what the rule acts on or sends the shopper to.
function typeValues(content: RuleContent): string[] {
  switch (content.type) {
    case 'blockList':
    case 'boostList':
    case 'buryList':
      return content.fieldValues;
    case 'pinned':
      return content.pinnedValues.map(({ value }) => value);
    case 'redirect':
      return [content.url];
    case 'banner':
      return [content.bannerUrl, content.zone];
    case 'filterList':
      return [content.fieldName, ...content.fieldValues];
    case 'boostAttributes':
      return content.boosts.flatMap(({ fieldName, value, query }) =>
        query === undefined ? [fieldName ?? '', value ?? ''] : [query],
      );
    case 'setParams':
      return content.params.flatMap(({ key, value }) => [key, value]);
    case 'responseValue':
      return content.responseValues.flatMap(({ key, value }) => [
        key,
        typeof value === 'string' ? value : JSON.stringify(value),
      ]);
    case 'setFacetList':
      return content.facetFields;
  }
}

/** All the words of a content, each once: the set a `searchQuery` is matched against. */
export function allSearchWords(fields: SearchableFields): Set<string> {
  return new Set(Object.values(fields).flat());
}
