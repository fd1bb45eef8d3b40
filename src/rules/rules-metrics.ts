// The rules area's metrics: publishes, listings by scenario, bulk operations. Built once
// per app with the area's parts; counting costs a label look-up per request.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { ListingQuery } from './schemas.js';

/**
 * What kind of listing a `GET /em-rules` was, by the most expensive thing it asked for:
 * `conflicts` (fields=CONFLICTS, whatever else), `targeted` (targetedDocumentId),
 * `search` (searchQuery, with or without filters), `filtered` (any other filter: tags,
 * groups, types, publishState, published, contentType, a date range), `all` (none: a
 * page of every rule, sorted). Paging, sort and the other extras do not change it.
 */
export type ListingScenario = 'conflicts' | 'targeted' | 'search' | 'filtered' | 'all';

const NOT_FILTERS = new Set(['page', 'size', 'sort', 'fields', 'searchQuery', 'targetedDocumentFieldName']);

/** The scenario of a listing, from its checked parameters. */
export function listingScenario(query: ListingQuery): ListingScenario {
  if (query.fields?.includes('CONFLICTS')) return 'conflicts';
  if (query.targetedDocumentId !== undefined) return 'targeted';
  if (query.searchQuery !== undefined) return 'search';
  const filtered = Object.entries(query).some(
    ([name, value]) => value !== undefined && !NOT_FILTERS.has(name),
  );
  return filtered ? 'filtered' : 'all';
}

/** Where a publish came from: its own request, or an item of a bulk operation. */
export type PublishSource = 'api' | 'bulk';
export type BulkItemOperation = 'create' | 'update' | 'delete' | 'publish';
export type BulkCounts = Record<'created' | 'updated' | 'deleted' | 'published' | 'failed', number>;

const LISTING_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const COUNTED: Array<[keyof BulkCounts, BulkItemOperation]> = [
  ['created', 'create'],
  ['updated', 'update'],
  ['deleted', 'delete'],
  ['published', 'publish'],
];

export class RulesMetrics {
  readonly #publishes: Counter<'source'>;
  readonly #listings: Histogram<'scenario'>;
  readonly #bulkRunning: Gauge;
  readonly #bulkItems: Counter<'operation' | 'outcome'>;
  readonly #bulkOperations: Counter<'status'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.#publishes = new Counter({
      name: 'searchdeck_rule_publishes_total',
      help: 'Rules published, by source (api: POST /em-rules/{id}/publish; bulk: an item of a bulk operation)',
      labelNames: ['source'] as const,
      registers,
    });
    this.#listings = new Histogram({
      name: 'searchdeck_rule_listing_duration_seconds',
      help: 'Rules listings (GET /em-rules) answered, by scenario (all, filtered, search, targeted, conflicts)',
      labelNames: ['scenario'] as const,
      buckets: LISTING_BUCKETS,
      registers,
    });
    this.#bulkRunning = new Gauge({
      name: 'searchdeck_rule_bulk_operations_running',
      help: 'Bulk operations being processed on this node now',
      registers,
    });
    this.#bulkItems = new Counter({
      name: 'searchdeck_rule_bulk_items_processed_total',
      help: 'Items of bulk operations processed and committed, by operation and outcome (ok, failed)',
      labelNames: ['operation', 'outcome'] as const,
      registers,
    });
    this.#bulkOperations = new Counter({
      name: 'searchdeck_rule_bulk_operations_total',
      help: 'Bulk operations ended, by status (DONE, FAILED)',
      labelNames: ['status'] as const,
      registers,
    });
  }

  published(source: PublishSource, count = 1): void {
    if (count > 0) this.#publishes.inc({ source }, count);
  }

  listed(scenario: ListingScenario, seconds: number): void {
    this.#listings.observe({ scenario }, seconds);
  }

  bulkStarted(): void {
    this.#bulkRunning.inc();
  }

  bulkEnded(status: 'DONE' | 'FAILED'): void {
    this.#bulkRunning.dec();
    this.#bulkOperations.inc({ status });
  }

  /**
   * Counts the items of a committed chunk: those done, as the difference of the operation's
   * counts around it, and those that failed on their own (bad body, unknown id).
   */
  bulkChunkCommitted(before: BulkCounts, after: BulkCounts, failed: BulkItemOperation[]): void {
    for (const [count, operation] of COUNTED) {
      const done = after[count] - before[count];
      if (done > 0) this.#bulkItems.inc({ operation, outcome: 'ok' }, done);
    }
    for (const operation of failed) this.#bulkItems.inc({ operation, outcome: 'failed' });
    this.published('bulk', after.published - before.published);
  }
}
