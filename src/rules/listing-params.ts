// The rules listing's query parameters. The route's schema checks each one (bounds,
// enums, defaults); before it, `normaliseListingSyntax` brings the URL's forms to
// the schema's (lists repeated or comma-separated, enum values in any case); after
// it, `parseListing` checks what no schema can say (a direction's place in `sort`,
// which parameters combine, dates, the size of a search) and builds the listing.
// What every listing shares is in src/listing/params.ts; the rules' own filters are here.
import type { FieldError } from '../http/schemas.js';
import {
  type CommonFilter,
  listOf,
  normaliseListingSyntax as normaliseSyntax,
  parseCommonFilter,
  parseSort,
  type Query,
  type Range,
  type SortKey as SortKeyOf,
  searchRejected,
  single,
  throwIfInvalid,
  withoutUnset,
} from '../listing/params.js';
import { DEFAULT_PAGE_SIZE, type ExtraField, type SortProperty } from './listing-terms.js';
import type { ContentType, RuleType } from './rule.js';
import { normaliseRuleType } from './rule-validation.js';
import type { FieldsQuery, ListingQuery } from './schemas.js';

export { listOf, MAX_SEARCH_CHARACTERS, MAX_SEARCH_WORDS } from '../listing/params.js';
export type { Range };

export type SortKey = SortKeyOf<SortProperty>;

export interface ListingFilter extends CommonFilter<RuleType> {
  tags?: string[] | undefined;
  groups?: string[] | undefined;
  targeted?: { value: string; fieldName: string } | undefined;
  contentType?: ContentType | undefined;
}

export interface ListingParams {
  filter: ListingFilter;
  /** 'relevance' orders by `textSearchRelevance`, best first; otherwise the sort keys. */
  sort: SortKey[] | 'relevance';
  page: number;
  size: number;
}

// Parameters that may repeat or be comma-separated, and those whose values are taken in any case.
const LIST_PARAMETERS = ['tags', 'groups', 'types', 'sort', 'fields'];
const UPPER_CASE_PARAMETERS = ['publishState', 'contentType', 'fields'];

/**
 * The URL's forms brought to the schema's: every list parameter an array of its values
 * (`sort=name,desc&sort=type` → `['name', 'desc', 'type']`), enum values in the case
 * the schema names them, sort directions in lower case.
 */
export function normaliseListingSyntax(query: Query): Query {
  return normaliseSyntax(query, LIST_PARAMETERS, UPPER_CASE_PARAMETERS);
}

/** The extras asked for by `fields` (FUSION_SYNC_STATUS is PLATFORM_SYNC_STATUS). */
export function parseFields(query: FieldsQuery): Set<ExtraField> {
  return new Set(
    (query.fields ?? []).map(
      (field): ExtraField => (field === 'FUSION_SYNC_STATUS' ? 'PLATFORM_SYNC_STATUS' : field),
    ),
  );
}

/**
 * Checks what the schema cannot say about the listing's parameters and builds the listing;
 * every problem is reported at once.
 */
export function parseListing(listing: ListingQuery): ListingParams {
  const query = listing as Query;
  const errors: FieldError[] = [];
  const fail = (field: string, message: string) => errors.push({ field, message: `${field} ${message}` });
  const common = parseCommonFilter(listing, normaliseRuleType, errors);
  const filter: ListingFilter = {
    searchWords: common.searchWords,
    tags: listOf(query.tags),
    groups: listOf(query.groups),
    types: common.types,
    publishState: common.publishState,
    contentType: listing.contentType,
    published: common.published,
    active: common.active,
    expiration: common.expiration,
    lastModified: common.lastModified,
    creationDate: common.creationDate,
  };

  if (query.targetedDocumentId !== undefined) {
    const others = Object.entries(filter).filter(([, value]) => value !== undefined);
    if (others.length > 0) {
      const names = others.map(([name]) => (name === 'searchWords' ? 'searchQuery' : name));
      fail('targetedDocumentId', `cannot be combined with other filters (${names.join(', ')})`);
    }
    const fieldName =
      query.targetedDocumentFieldName === undefined ? 'id' : single(query.targetedDocumentFieldName);
    filter.targeted = { value: single(query.targetedDocumentId), fieldName };
  } else if (query.targetedDocumentFieldName !== undefined) {
    fail('targetedDocumentFieldName', 'needs targetedDocumentId');
  }

  // A rejected searchQuery is reported once, not again as missing for the sort.
  const sort = parseSort<SortProperty>(listing.sort, filter, searchRejected(listing, filter), errors, {
    property: 'lastModified',
    descending: true,
  });

  throwIfInvalid(errors);
  return {
    filter: withoutUnset(filter),
    sort,
    page: listing.page ?? 0,
    size: listing.size ?? DEFAULT_PAGE_SIZE,
  };
}
