// The rewrites listing: the parameters every listing shares (src/listing), one page of
// rewrites from the database, the paging envelope.
import type { Kysely } from 'kysely';
import type { FieldError } from '../http/schemas.js';
import { DEFAULT_PAGE_SIZE, type Page, pageOf } from '../listing/page.js';
import {
  type CommonFilter,
  normaliseListingSyntax,
  parseCommonFilter,
  parseSort,
  type Query,
  type SortKey,
  searchRejected,
  throwIfInvalid,
  withoutUnset,
} from '../listing/params.js';
import type { Database } from '../storage/schema.js';
import { queryRewriteListing } from './listing-repository.js';
import { REWRITE_TYPES, type RewriteType } from './rewrite.js';
import { normaliseRewriteType } from './rewrite-content.js';
import type { RewriteListingQuery, RewriteResponse, RewriteSortProperty } from './schemas.js';

export interface RewriteListingParams {
  filter: CommonFilter<RewriteType>;
  /** 'relevance' orders by `textSearchRelevance`, best first; otherwise the sort keys. */
  sort: SortKey<RewriteSortProperty>[] | 'relevance';
  page: number;
  size: number;
}

/** The URL's list and enum forms brought to the listing schema's. */
export function normaliseRewriteListingSyntax(query: Query): Query {
  return normaliseListingSyntax(query, ['types', 'sort'], ['publishState']);
}

/** Checks what the schema cannot say about the parameters; every problem at once. */
export function parseRewriteListing(listing: RewriteListingQuery): RewriteListingParams {
  const errors: FieldError[] = [];
  const filter = parseCommonFilter<RewriteType>(listing, typeNamed, errors);
  const sort = parseSort<RewriteSortProperty>(listing.sort, filter, searchRejected(listing, filter), errors, {
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

/** `GET /query-rewrites`: one page of the studio's rewrites, presented by `present`. */
export async function listRewrites(
  db: Kysely<Database>,
  studioId: string,
  query: RewriteListingQuery,
  present: Parameters<typeof queryRewriteListing>[3],
): Promise<Page<RewriteResponse>> {
  const params = parseRewriteListing(query);
  const { content, total } = await queryRewriteListing(db, studioId, params, present);
  return pageOf(content, params.page, params.size, total);
}

function typeNamed(name: string, field: string) {
  const type = normaliseRewriteType(name);
  if (type !== undefined) return { ok: true as const, value: type };
  return {
    ok: false as const,
    errors: [{ field, message: `${field} must be one of ${REWRITE_TYPES.join(', ')}` }],
  };
}
