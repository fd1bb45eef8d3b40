// What one hour of raw signals rolls up to: a pure function of the hour's counted searches and
// the signals attributed to them, so rolling an hour again from the same rows gives the same rows.
import type { RollupCounts } from './tables.js';

export type RollupKind = 'total' | 'search' | 'rule' | 'document' | 'variant';

/** A counted search as the rollup reads it. */
export interface RawSearch {
  id: string;
  queryKey: string;
  at: number;
  hits: number;
  /** The document ids of the answer's page, in order (position = index + 1). */
  docIds: readonly string[];
  ruleIds: readonly string[];
  /** The experiment and variant it was assigned to, when counted for an experiment. */
  experiment?: string | null | undefined;
  variant?: string | null | undefined;
}

/** The item of a variant's rollup rows: the experiment's id and the variant's, apart. */
export function variantItem(experiment: string, variant: string): string {
  return `${experiment}\u0001${variant}`;
}

/** A posted signal attributed to one of those searches. */
export interface RawSignal {
  queryId: string;
  type: string;
  docId: string | null;
  position: number | null;
}

/** One rollup row's identity: its kind and item (`''` for the total). */
export interface RollupKey {
  kind: RollupKind;
  item: string;
}

export const ZERO_COUNTS: Readonly<RollupCounts> = Object.freeze({
  searches: 0,
  no_result_searches: 0,
  click_searches: 0,
  conversion_searches: 0,
  cart_searches: 0,
  clicks: 0,
  conversions: 0,
  carts: 0,
  position_sum: 0,
  position_count: 0,
  last_at: 0,
  last_hits: 0,
});

/** The map key of a rollup row: kind and item, which the kinds' names keep apart. */
export function rowKey(kind: string, item: string): string {
  return `${kind}\u0000${item}`;
}

export function splitRowKey(key: string): RollupKey {
  const at = key.indexOf('\u0000');
  return { kind: key.slice(0, at) as RollupKind, item: key.slice(at + 1) };
}

/**
 * The 1-based position of a click: where the answer the shopper saw put the document
 * (the response signal's own record), else the position the shop sent, else unknown.
 */
export function clickPosition(search: RawSearch, signal: RawSignal): number | undefined {
  if (signal.docId !== null) {
    const index = search.docIds.indexOf(signal.docId);
    if (index >= 0) return index + 1;
  }
  return signal.position !== null && signal.position >= 1 ? signal.position : undefined;
}

/** Whether `a` is a later search than the one recorded (ties: the more hits, so order never matters). */
export function isLater(at: number, hits: number, counts: RollupCounts): boolean {
  return counts.searches === 0 || at > counts.last_at || (at === counts.last_at && hits > counts.last_hits);
}

/** The signal types a document's row counts; other types count nowhere in the answers. */
const DOCUMENT_SIGNALS = new Set(['click', 'purchase', 'cart']);

/** Adds one search (and its attributed signals) into the rows it counts in. */
export class HourRollup {
  readonly rows = new Map<string, RollupCounts>();

  #row(kind: RollupKind, item: string): RollupCounts {
    const key = rowKey(kind, item);
    let row = this.rows.get(key);
    if (!row) {
      row = { ...ZERO_COUNTS };
      this.rows.set(key, row);
    }
    return row;
  }

  add(search: RawSearch, signals: readonly RawSignal[]): void {
    let clicks = 0;
    let conversions = 0;
    let carts = 0;
    let positionSum = 0;
    let positionCount = 0;
    for (const signal of signals) {
      if (signal.type === 'click') {
        clicks++;
        const position = clickPosition(search, signal);
        if (position !== undefined) {
          positionSum += position;
          positionCount++;
        }
      } else if (signal.type === 'purchase') conversions++;
      else if (signal.type === 'cart') carts++;
      if (signal.docId !== null && DOCUMENT_SIGNALS.has(signal.type)) {
        const document = this.#row('document', signal.docId);
        if (signal.type === 'click') document.clicks++;
        else if (signal.type === 'purchase') document.conversions++;
        else document.carts++;
      }
    }
    const outcome = (row: RollupCounts) => {
      row.searches++;
      if (search.hits === 0) row.no_result_searches++;
      if (clicks > 0) row.click_searches++;
      if (conversions > 0) row.conversion_searches++;
      if (carts > 0) row.cart_searches++;
    };
    const rows = [this.#row('total', ''), this.#row('search', search.queryKey)];
    // A search assigned to an experiment's variant counts in the variant's row too: an
    // experiment's results are read from these rows (experiments/metrics.ts).
    if (search.experiment && search.variant)
      rows.push(this.#row('variant', variantItem(search.experiment, search.variant)));
    for (const row of rows) {
      if (isLater(search.at, search.hits, row)) {
        row.last_at = search.at;
        row.last_hits = search.hits;
      }
      outcome(row);
      row.clicks += clicks;
      row.conversions += conversions;
      row.carts += carts;
      row.position_sum += positionSum;
      row.position_count += positionCount;
    }
    for (const ruleId of new Set(search.ruleIds)) outcome(this.#row('rule', ruleId));
  }
}

/** The sum of several hours' rows of one item (a day's row); the latest search is the latest of them. */
export function sumCounts(rows: readonly RollupCounts[]): RollupCounts {
  const sum = { ...ZERO_COUNTS };
  for (const row of rows) {
    if (row.searches > 0 && isLater(row.last_at, row.last_hits, sum)) {
      sum.last_at = row.last_at;
      sum.last_hits = row.last_hits;
    }
    sum.searches += row.searches;
    sum.no_result_searches += row.no_result_searches;
    sum.click_searches += row.click_searches;
    sum.conversion_searches += row.conversion_searches;
    sum.cart_searches += row.cart_searches;
    sum.clicks += row.clicks;
    sum.conversions += row.conversions;
    sum.carts += row.carts;
    sum.position_sum += row.position_sum;
    sum.position_count += row.position_count;
  }
  return sum;
}

/** Whether two rows count the same. */
export function sameCounts(a: RollupCounts, b: RollupCounts): boolean {
  for (const key of Object.keys(ZERO_COUNTS) as Array<keyof RollupCounts>)
    if (a[key] !== b[key]) return false;
  return true;
}

/** Parses a JSON array of ids as the response signal stores it; anything else is no ids. */
export function idList(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}
