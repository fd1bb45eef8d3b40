// The listing's query parameters, checked and normalised, with messages that
// say what each one takes. Parsed here rather than by the route schema so that
// list parameters may repeat or be comma-separated and errors read plainly.
import { ValidationError } from '../http/errors.js';
import type { ContentType, FieldError, PublishState, RuleType } from './model.js';
import { normaliseRuleType } from './rule-type.js';
import { searchWords } from './text-search.js';

export const SORT_PROPERTIES = [
  'name',
  'type',
  'precedence',
  'creationDate',
  'lastModified',
  'createdBy',
  'lastModifiedBy',
  'publishState',
  'effectiveStart',
  'effectiveEnd',
] as const;
export type SortProperty = (typeof SORT_PROPERTIES)[number];
export interface SortKey {
  property: SortProperty;
  descending: boolean;
}

export const EXTRA_FIELDS = [
  'TARGETED_DOCUMENTS',
  'CONFLICTS',
  'IS_PENDING_BULK_OPERATION',
  'PLATFORM_SYNC_STATUS',
  'MIGRATION',
] as const;
export type ExtraField = (typeof EXTRA_FIELDS)[number];

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

/** The extras asked for by `fields` (FUSION_SYNC_STATUS is PLATFORM_SYNC_STATUS). */
export function parseFields(query: Query): Set<ExtraField> {
  const errors: FieldError[] = [];
  const fields = new Set<ExtraField>();
  for (const name of listOf(query.fields) ?? []) {
    const upper = name.toUpperCase();
    const field = upper === 'FUSION_SYNC_STATUS' ? 'PLATFORM_SYNC_STATUS' : upper;
    if ((EXTRA_FIELDS as readonly string[]).includes(field)) fields.add(field as ExtraField);
    else errors.push({ field: 'fields', message: `fields must be among ${EXTRA_FIELDS.join(', ')}` });
  }
  if (errors.length > 0) throw new ValidationError(errors, 'invalid-parameter');
  return fields;
}

/** Checks and normalises the listing's parameters; every problem is reported at once. */
export function parseListing(query: Query): ListingParams {
  const errors: FieldError[] = [];
  const fail = (field: string, message: string) => errors.push({ field, message: `${field} ${message}` });
  const filter: ListingFilter = {};

  if (query.searchQuery !== undefined) filter.searchWords = searchQuery(single(query.searchQuery), fail);
  filter.tags = listOf(query.tags);
  filter.groups = listOf(query.groups);
  const types = listOf(query.types)?.map((name) => normaliseRuleType(name, 'types'));
  for (const type of types ?? []) if (!type.ok) errors.push(...type.errors);
  filter.types = types?.flatMap((type) => (type.ok ? [type.value] : []));
  filter.publishState = oneOf(
    query,
    'publishState',
    ['DRAFT', 'PUBLISHED', 'PUBLISHED_WITH_DRAFT_EDITS'],
    fail,
  );
  filter.contentType = oneOf(query, 'contentType', ['RULE', 'QUERY_REWRITE'], fail);
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

  const page = integer(query.page, 0);
  if (page === undefined || page < 0) fail('page', 'must be an integer ≥ 0');
  const size = integer(query.size, 20);
  if (size === undefined || size < 1 || size > 1000) fail('size', 'must be an integer from 1 to 1000');
  // A rejected searchQuery is reported once, not again as missing for the sort.
  const searchRejected = query.searchQuery !== undefined && filter.searchWords === undefined;
  const sort = parseSort(query.sort, filter, searchRejected, fail);

  if (errors.length > 0) throw new ValidationError(errors, 'invalid-parameter');
  return { filter: withoutUnset(filter), sort, page: page ?? 0, size: size ?? 20 };
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
  for (const key of keys) {
    if (!(SORT_PROPERTIES as readonly string[]).includes(key.property)) {
      fail('sort', `property must be one of ${SORT_PROPERTIES.join(', ')}, textSearchRelevance`);
    }
  }
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

function integer(value: string | string[] | undefined, fallback: number): number | undefined {
  if (value === undefined) return fallback;
  const text = single(value).trim();
  return /^-?\d{1,9}$/.test(text) ? Number(text) : undefined;
}

function oneOf<const T extends string>(
  query: Query,
  name: string,
  allowed: readonly T[],
  fail: (field: string, message: string) => void,
): T | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  const upper = single(value).toUpperCase();
  if ((allowed as readonly string[]).includes(upper)) return upper as T;
  fail(name, `must be one of ${allowed.join(', ')}`);
  return undefined;
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
