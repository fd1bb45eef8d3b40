// The query-string schema every listing shares (rules, rewrites): the word search, the
// kinds, the publish state, the date ranges, paging and sort, with an area's own filters.
import Type, { type TProperties } from 'typebox';
import { errorMessage } from '../http/error-message.js';
import { PageNumber, PageSize } from './page.js';

/** The publish states of anything published from staging to live. */
export const PublishStateSchema = Type.Enum(['DRAFT', 'PUBLISHED', 'PUBLISHED_WITH_DRAFT_EDITS']);

/** The sort that orders by how well the items match `searchQuery`, best first. */
export const RELEVANCE_SORT = 'textSearchRelevance';

export interface ListingQueryOptions<Own extends TProperties, After extends TProperties> {
  /** What `sort` may name besides the directions. */
  sortProperties: readonly string[];
  /** Whether `sort` may be `textSearchRelevance`. */
  relevance: boolean;
  /** The area's own filters, after the shared ones and before the paging. */
  filters: Own;
  /** Parameters of the area after `sort` (what to add to each item, say). */
  after: After;
  examples?: { types?: string[]; sort?: string[] };
}

/**
 * A listing's query string. Lists may repeat or be comma-separated and enum values may come
 * in any case: `normaliseListingSyntax` brings them to this form before the check; what a
 * schema cannot say (a direction's place in `sort`, which parameters combine, dates and
 * searches) is checked after, by the area's parser.
 */
export function listingQuerySchema<Own extends TProperties, After extends TProperties>(
  options: ListingQueryOptions<Own, After>,
) {
  const sortable = options.relevance ? [...options.sortProperties, RELEVANCE_SORT] : options.sortProperties;
  const example = <T>(value: T | undefined) => (value === undefined ? {} : { examples: [value] });
  return Type.Object({
    searchQuery: Type.Optional(Type.String()),
    types: Type.Optional(Type.Array(Type.String(), example(options.examples?.types))),
    publishState: Type.Optional(PublishStateSchema),
    published: Type.Optional(Type.String()),
    activeDateStart: Type.Optional(Type.String()),
    activeDateEnd: Type.Optional(Type.String()),
    expirationDateStart: Type.Optional(Type.String()),
    expirationDateEnd: Type.Optional(Type.String()),
    lastModifiedStart: Type.Optional(Type.String()),
    lastModifiedEnd: Type.Optional(Type.String()),
    creationDateStart: Type.Optional(Type.String()),
    creationDateEnd: Type.Optional(Type.String()),
    ...options.filters,
    page: Type.Optional(PageNumber),
    size: Type.Optional(PageSize),
    sort: Type.Optional(
      Type.Array(
        Type.Enum([...sortable, 'asc', 'desc'], {
          description: 'A property, then optionally its direction (default asc).',
          ...errorMessage(`property must be one of ${sortable.join(', ')}`),
        }),
        example(options.examples?.sort),
      ),
    ),
    ...options.after,
  });
}
