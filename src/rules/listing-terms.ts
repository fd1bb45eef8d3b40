// The listing's vocabulary: what it sorts by, the extras it adds, its page bounds.
// Shared by the route's schemas and the listing's code.

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

export const EXTRA_FIELDS = [
  'TARGETED_DOCUMENTS',
  'CONFLICTS',
  'IS_PENDING_BULK_OPERATION',
  'PLATFORM_SYNC_STATUS',
  'MIGRATION',
] as const;
export type ExtraField = (typeof EXTRA_FIELDS)[number];

export { DEFAULT_PAGE_SIZE, MAX_PAGE, MAX_PAGE_SIZE } from '../listing/page.js';
