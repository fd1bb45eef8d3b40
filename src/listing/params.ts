// The parameters every content listing shares (rules, query rewrites): the URL's list and
// enum forms brought to the schema's, and the checks no schema can say (a direction's place
// in `sort`, dates, the size of a search). Each area adds its own filters around these.
import { ValidationError } from '../http/errors.js';
import type { FieldError } from '../http/schemas.js';
import { searchWords } from './search-words.js';

export type PublishState = 'DRAFT' | 'PUBLISHED' | 'PUBLISHED_WITH_DRAFT_EDITS';

// Bounds on a search's work: a longer query is a script's or an attacker's, not a person's.
export const MAX_SEARCH_WORDS = 32;
export const MAX_SEARCH_CHARACTERS = 512;

/** A range of instants, either bound open (ISO 8601 UTC with milliseconds). */
export interface Range {
  start?: string | undefined;
  end?: string | undefined;
}

export interface SortKey<Property extends string = string> {
  property: Property;
  descending: boolean;
}

/** The filters every listing has: search words, types, publish state, date ranges. */
export interface CommonFilter<Type extends string = string> {
  /** Words of `searchQuery`; every one must begin a word of the item. */
  searchWords?: string[] | undefined;
  types?: Type[] | undefined;
  publishState?: PublishState | undefined;
  published?: boolean | undefined;
  active?: Range | undefined;
  expiration?: Range | undefined;
  lastModified?: Range | undefined;
  creationDate?: Range | undefined;
}

/** What the common parameters look like once the route's schema checked them. */
export interface CommonQuery {
  searchQuery?: string | undefined;
  types?: string[] | undefined;
  publishState?: PublishState | undefined;
  published?: string | undefined;
  page?: number | undefined;
  size?: number | undefined;
  sort?: string[] | undefined;
}

export type Query = Record<string, string | string[] | undefined>;
export type Fail = (field: string, message: string) => void;
export type TypeNormaliser<Type extends string> = (
  name: string,
  field: string,
) => { ok: true; value: Type } | { ok: false; errors: FieldError[] };

/**
 * The URL's forms brought to the schema's: every list parameter an array of its values
 * (`sort=name,desc&sort=type` → `['name', 'desc', 'type']`), enum values in the case
 * the schema names them, sort directions in lower case.
 */
export function normaliseListingSyntax(
  query: Query,
  lists: readonly string[],
  upperCase: readonly string[],
): Query {
  const normalised: Query = { ...query };
  for (const name of lists) {
    const value = query[name];
    // Directions repeat (`sort=name,desc&sort=type,desc`): only the sort keeps its repeats.
    if (value !== undefined) normalised[name] = listOf(value, name !== 'sort') ?? [];
  }
  for (const name of upperCase) {
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

/**
 * The common filters of a listing's parameters; problems go to `fail`. `types` names are
 * taken in any case through the area's normaliser.
 */
export function parseCommonFilter<Type extends string>(
  listing: CommonQuery,
  normaliseType: TypeNormaliser<Type>,
  errors: FieldError[],
): CommonFilter<Type> {
  const query = listing as Query;
  const fail: Fail = (field, message) => errors.push({ field, message: `${field} ${message}` });
  const filter: CommonFilter<Type> = {};
  if (query.searchQuery !== undefined) filter.searchWords = searchQuery(single(query.searchQuery), fail);
  const types = listOf(query.types)?.map((name) => normaliseType(name, 'types'));
  for (const type of types ?? []) if (!type.ok) errors.push(...type.errors);
  filter.types = types?.flatMap((type) => (type.ok ? [type.value] : []));
  filter.publishState = listing.publishState;
  if (query.published !== undefined) {
    const published = single(query.published).toLowerCase();
    if (published === 'true' || published === 'false') filter.published = published === 'true';
    else fail('published', 'must be true or false');
  }
  filter.active = range(query, 'activeDate', fail);
  filter.expiration = range(query, 'expirationDate', fail);
  filter.lastModified = range(query, 'lastModified', fail);
  filter.creationDate = range(query, 'creationDate', fail);
  return filter;
}

/**
 * The sort keys of `sort`, 'relevance' for `textSearchRelevance`, the area's default when
 * none is given. The schema allows only the area's properties and the directions as values.
 */
export function parseSort<Property extends string>(
  value: string | string[] | undefined,
  filter: CommonFilter,
  searchRejected: boolean,
  errors: FieldError[],
  fallback: SortKey<Property>,
): SortKey<Property>[] | 'relevance' {
  const fail: Fail = (field, message) => errors.push({ field, message: `${field} ${message}` });
  // `sort=name,desc&sort=type` or `sort=name,desc,type`: a direction belongs to the property before it.
  const tokens = listOf(value, false) ?? [];
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
  if (keys.length === 0) return [fallback];
  return keys as SortKey<Property>[];
}

/** Whether `searchQuery` was given and refused (then a sort needing it says nothing more). */
export function searchRejected(listing: CommonQuery, filter: CommonFilter): boolean {
  return listing.searchQuery !== undefined && filter.searchWords === undefined;
}

/** Throws every problem found at once, as the listing's parameters' error. */
export function throwIfInvalid(errors: FieldError[]): void {
  if (errors.length > 0) throw new ValidationError(errors, 'invalid-parameter');
}

/** The distinct words of a search, when it is within the limits. */
function searchQuery(text: string, fail: Fail): string[] | undefined {
  if ([...text].length > MAX_SEARCH_CHARACTERS) {
    fail('searchQuery', `must have at most ${MAX_SEARCH_CHARACTERS} characters`);
    return undefined;
  }
  const words = searchWords(text);
  if (words.length > MAX_SEARCH_WORDS) {
    fail('searchQuery', `must have at most ${MAX_SEARCH_WORDS} words`);
    return undefined;
  }
  // A repeated word selects the same items again: asked once, it weighs once.
  return [...new Set(words)];
}

/** The values of a list parameter, repeated or comma-separated, each once unless not `distinct`; undefined when absent. */
export function listOf(value: string | string[] | undefined, distinct = true): string[] | undefined {
  if (value === undefined) return undefined;
  const values = [value]
    .flat()
    .flatMap((part) => part.split(','))
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (values.length === 0) return undefined;
  return distinct ? [...new Set(values)] : values;
}

export function single(value: string | string[]): string {
  return Array.isArray(value) ? (value[0] ?? '') : value;
}

const INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

function range(query: Query, prefix: string, fail: Fail): Range | undefined {
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

/** The filter without its unset members. */
export function withoutUnset<Filter extends object>(filter: Filter): Filter {
  return Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined)) as Filter;
}
