// The listing's query parameters. The route's schema checks each one (bounds,
// enums, defaults); before it, `normaliseListingSyntax` brings the URL's forms to
// the schema's (lists repeated or comma-separated, enum values in any case); after
// it, `parseListing` checks what no schema can say (a direction's place in `sort`,
// which parameters combine, dates, the size of a search) and builds the listing.
import { ValidationError } from '../http/errors.js';
import { DEFAULT_PAGE_SIZE, type ExtraField, type SortProperty } from './listing-terms.js';
import type { ContentType, FieldError, PublishState, RuleType } from './rule.js';
import { normaliseRuleType } from './rule-validation.js';
import type { FieldsQuery, ListingQuery } from './schemas.js';
import { searchWords } from './text-search.js';

export interface SortKey {
  property: SortProperty;
  descending: boolean;
}

// Bounds on a search's work: a longer query is a script's or an attacker's, not a person's.
export const MAX_SEARCH_WORDS = 32;
export const MAX_SEARCH_CHARACTERS = 512;

/** A range of instants, either bound open (ISO 8601 UTC with milliseconds). */
export interface Range {
  start?: string | undefined;
  end?: string | undefined;
}

export interface ListingFilter {
  /** Words of `searchQuery`; every one must begin a word of the rule. */
  searchWords?: string[] | undefined;
  tags?: string[] | undefined;
  groups?: string[] | undefined;
  types?: RuleType[] | undefined;
  publishState?: PublishState | undefined;
  published?: boolean | undefined;
  targeted?: { value: string; fieldName: string } | undefined;
  active?: Range | undefined;
  expiration?: Range | undefined;
  lastModified?: Range | undefined;
  creationDate?: Range | undefined;
  contentType?: ContentType | undefined;
}

export interface ListingParams {
  filter: ListingFilter;
  /** 'relevance' orders by `textSearchRelevance`, best first; otherwise the sort keys. */
  sort: SortKey[] | 'relevance';
  page: number;
  size: number;
}

type Query = Record<string, string | string[] | undefined>;

// Parameters that may repeat or be comma-separated, and those whose values are taken in any case.
const LIST_PARAMETERS = ['tags', 'groups', 'types', 'sort', 'fields'];
const UPPER_CASE_PARAMETERS = ['publishState', 'contentType', 'fields'];

/**
 * The URL's forms brought to the schema's: every list parameter an array of its values
 * (`sort=name,desc&sort=type` → `['name', 'desc', 'type']`), enum values in the case
 * the schema names them, sort directions in lower case.
 */
export function normaliseListingSyntax(query: Query): Query {
  const normalised: Query = { ...query };
  for (const name of LIST_PARAMETERS) {
    const value = query[name];
    if (value !== undefined) normalised[name] = listOf(value) ?? [];
  }
  for (const name of UPPER_CASE_PARAMETERS) {
    const value = normalised[name];
    if (typeof value === 'string') normalised[name] = value.toUpperCase();
    else if (value !== undefined) normalised[name] = value.map((item) => item.toUpperCase());
  }
  normalised.sort &&= [normalised.sort].flat().map((token) => {
    const lower = token.toLowerCase();
    return lower === 'asc' || lower === 'desc' ? lower : token;
  });
  return normalised;
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
  // The text parameters by name (the dates are read in a loop over their names).
  const query = listing as Query;
  const errors: FieldError[] = [];
  const fail = (field: string, message: string) => errors.push({ field, message: `${field} ${message}` });
  const filter: ListingFilter = {};

  if (query.searchQuery !== undefined) filter.searchWords = searchQuery(single(query.searchQuery), fail);
  filter.tags = listOf(query.tags);
  filter.groups = listOf(query.groups);
  const types = listOf(query.types)?.map((name) => normaliseRuleType(name, 'types'));
  for (const type of types ?? []) if (!type.ok) errors.push(...type.errors);
  filter.types = types?.flatMap((type) => (type.ok ? [type.value] : []));
  filter.publishState = listing.publishState;
  filter.contentType = listing.contentType;
  if (query.published !== undefined) {
    const published = single(query.published).toLowerCase();
    if (published === 'true' || published === 'false') filter.published = published === 'true';
    else fail('published', 'must be true or false');
  }
  filter.active = range(query, 'activeDate', fail);
  filter.expiration = range(query, 'expirationDate', fail);
  filter.lastModified = range(query, 'lastModified', fail);
  filter.creationDate = range(query, 'creationDate', fail);

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
  const searchRejected = query.searchQuery !== undefined && filter.searchWords === undefined;
  const sort = parseSort(query.sort, filter, searchRejected, fail);

  if (errors.length > 0) throw new ValidationError(errors, 'invalid-parameter');
  return {
    filter: withoutUnset(filter),
    sort,
    page: listing.page ?? 0,
    size: listing.size ?? DEFAULT_PAGE_SIZE,
  };
}

/** The distinct words of a search, when it is within the limits. */
function searchQuery(text: string, fail: (field: string, message: string) => void): string[] | undefined {
  if ([...text].length > MAX_SEARCH_CHARACTERS) {
    fail('searchQuery', `must have at most ${MAX_SEARCH_CHARACTERS} characters`);
    return undefined;
  }
  const words = searchWords(text);
  if (words.length > MAX_SEARCH_WORDS) {
    fail('searchQuery', `must have at most ${MAX_SEARCH_WORDS} words`);
    return undefined;
  }
  // A repeated word selects the same rules again: asked once, it weighs once.
  return [...new Set(words)];
}

function parseSort(
  value: string | string[] | undefined,
  filter: ListingFilter,
  searchRejected: boolean,
  fail: (field: string, message: string) => void,
): ListingParams['sort'] {
  // `sort=name,desc&sort=type` or `sort=name,desc,type`: a direction belongs to the property before it.
  const tokens = listOf(value) ?? [];
  const keys: Array<{ property: string; descending: boolean }> = [];
  for (const token of tokens) {
    const lower = token.toLowerCase();
    const last = keys.at(-1);
    if ((lower === 'asc' || lower === 'desc') && last) last.descending = lower === 'desc';
    else if (lower === 'asc' || lower === 'desc') fail('sort', `direction ${token} must follow a property`);
    else keys.push({ property: token, descending: false });
  }
  if (keys.some((key) => key.property === 'textSearchRelevance')) {
    if (keys.length > 1) fail('sort', 'textSearchRelevance cannot be combined with other sorts');
    if (!filter.searchWords?.length && !searchRejected)
      fail('sort', 'textSearchRelevance needs a searchQuery');
    return 'relevance';
  }
  // The schema allows only the sort properties (and the directions) as values.
  if (keys.length === 0) return [{ property: 'lastModified', descending: true }];
  return keys as SortKey[];
}

/** The values of a list parameter, repeated or comma-separated; undefined when absent. */
export function listOf(value: string | string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const values = [value]
    .flat()
    .flatMap((part) => part.split(','))
    .map((part) => part.trim())
    .filter((part) => part !== '');
  return values.length > 0 ? [...new Set(values)] : undefined;
}

function single(value: string | string[]): string {
  return Array.isArray(value) ? (value[0] ?? '') : value;
}

const INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

function range(
  query: Query,
  prefix: string,
  fail: (field: string, message: string) => void,
): Range | undefined {
  const bounds: Range = {};
  for (const side of ['start', 'end'] as const) {
    const name = `${prefix}${side === 'start' ? 'Start' : 'End'}`;
    const value = query[name];
    if (value === undefined) continue;
    const text = single(value).trim();
    const time = INSTANT.test(text)
      ? Date.parse(text.length === 10 ? `${text}T00:00:00Z` : text)
      : Number.NaN;
    if (Number.isNaN(time)) fail(name, 'must be an ISO 8601 date or date-time (2026-01-15T14:30:00Z)');
    else bounds[side] = new Date(time).toISOString();
  }
  return bounds.start === undefined && bounds.end === undefined ? undefined : bounds;
}

function withoutUnset(filter: ListingFilter): ListingFilter {
  return Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined));
}
