// Tables of the rules area. A rule row holds both contents as JSON plus the
// columns the listing filters and sorts on; the side tables index the values of
// BOTH contents, so that "staging or live matches" is one indexed lookup.

import type { Generated } from 'kysely';

export interface RuleTable {
  id: string;
  studio_id: string;
  external_id: string | null;
  content_type: string;
  migrated_id: string | null;
  staging: string;
  live: string | null;
  created_by: string;
  creation_date: string;
  last_modified_by: string;
  last_modified: string;
  // Sort columns, from the staging content.
  name_key: string;
  type: string;
  precedence: number;
  /** effectiveStart, '' when open: an open start sorts first. */
  sort_start: string;
  /** effectiveEnd, '~' when open: an open end sorts last. */
  sort_end: string;
  publish_state: string;
  published: number;
  // Filter columns for the date ranges of both contents (null: open bound).
  staging_start: string | null;
  staging_end: string | null;
  live_start: string | null;
  live_end: string | null;
  // Delivery to the studio's sync targets: versions count changes of each content.
  staging_version: number;
  staging_synced_version: number | null;
  staging_synced_at: string | null;
  staging_failed_version: number | null;
  live_version: number;
  live_synced_version: number | null;
  live_synced_at: string | null;
  live_failed_version: number | null;
  bulk_operation_id: string | null;
}

/** One filterable value of a rule (from staging or live): kind 'tag' | 'group' | 'type' | 'target'. */
export interface RuleFacetTable {
  rule_id: string;
  studio_id: string;
  kind: string;
  value: string;
  /** The document field of a 'target' value; '' for the other kinds. */
  field: string;
}

/** One search word of a rule's field, with its count (the larger of staging's and live's). */
export interface RuleWordTable {
  studio_id: string;
  word: string;
  rule_id: string;
  field: string;
  tf: number;
}

/**
 * A rule's entry in the full-text index (see text-index.ts). SQLite: `doc` is the rowid of
 * its FTS5 row in `rule_text`. PostgreSQL: `doc` is its tsvector, written as SQL text.
 */
export interface RuleSearchTable {
  doc: Generated<number>;
  rule_id: string;
  studio_id: string;
}

/** How many rules a studio has: the unfiltered listing's total without counting them. */
export interface RuleCountTable {
  studio_id: string;
  rules: number;
}

export interface RuleBulkOperationTable {
  id: string;
  studio_id: string;
  status: string;
  /** JSON of the request, until it is processed. */
  request: string;
  /** JSON `{ created, updated, deleted, published, failed }`. */
  counts: string;
  /** JSON array of `{ index, operation, id?, message }`. */
  errors: string;
  created_at: string;
  finished_at: string | null;
  /** Last sign of life of the node running it (null for rows older than the column). */
  heartbeat_at: string | null;
}

/** One delivery of the rule-sync outbox (see webhook-delivery.ts). */
export interface WebhookDeliveryTable {
  /** Also the `webhook-id` the targets see: the same on every attempt. */
  id: string;
  studio_id: string;
  rule_id: string;
  /** 'rule.changed' or 'rule.removed'. */
  event: string;
  /** 'staging' or 'live'. */
  stage: string;
  /** 'PENDING', 'DELIVERED', 'SKIPPED' or 'FAILED'. */
  status: string;
  attempts: number;
  /** When a PENDING delivery is due; while a node sends it, when its claim lapses. */
  next_attempt_at: string;
  /** The node that last claimed it. */
  claimed_by: string | null;
  last_error: string | null;
  created_at: string;
  finished_at: string | null;
}
