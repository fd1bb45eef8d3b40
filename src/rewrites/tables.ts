// Tables of the query rewrites area. A rewrite row holds both contents as JSON plus the
// columns the listing filters and sorts on; the word table indexes the words of both
// contents for `searchQuery`; the publish table orders publishes of one studio.

export interface QueryRewriteTable {
  id: string;
  studio_id: string;
  type: string;
  staging: string;
  live: string | null;
  created_by: string;
  creation_date: string;
  last_modified_by: string;
  last_modified: string;
  publish_state: string;
  published: number;
  /** effectiveStart of staging, '' when open: an open start sorts first. */
  sort_start: string;
  /** effectiveEnd of staging, '~' when open: an open end sorts last. */
  sort_end: string;
  staging_start: string | null;
  staging_end: string | null;
  live_start: string | null;
  live_end: string | null;
}

/** One search word of a rewrite (from staging or live), once per rewrite. */
export interface QueryRewriteWordTable {
  studio_id: string;
  word: string;
  rewrite_id: string;
}

/**
 * One row per studio that ever published a rewrite: a publish updates it first, so the
 * publishes of one studio take turns and each checks loops against the live set the
 * previous one left (two publishes each fine alone could otherwise close a loop together).
 */
export interface QueryRewritePublishTable {
  studio_id: string;
  publishes: number;
}
