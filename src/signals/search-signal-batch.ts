// The response signals of the query endpoint: one row per answered query, kept in memory and
// written together at least every second and when the server stops, as search logs are, so
// a query never waits on the database. A crash loses at most the last second of them. A
// click posted meanwhile for one of them flushes the batch first (signals/service.ts).
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { termKey } from '../text/term-key.js';
import { insertSearchSignals } from './repository.js';
import type { ShopperHasher } from './shopper-hash.js';
import type { SignalMetrics } from './signal-metrics.js';
import type { SearchSignalTable } from './tables.js';

/** What an answered query showed, as the query path tells it (the shopper's values still in the clear). */
export interface ResponseSignal {
  queryId: string;
  app: string;
  profileId: string;
  collection: string;
  /** When it was answered (epoch ms). */
  at: number;
  query: string;
  rewritten: string;
  /** Solr's numFound. */
  hits: number;
  /** The ids on the page, in order. */
  docIds: readonly string[];
  ruleIds: readonly string[];
  segments: readonly string[];
  user: string | undefined;
  session: string | undefined;
  /** Made with a search-only key: a shopper's search. */
  counted: boolean;
  /**
   * The experiment variant the shopper was assigned to by the value of the experiment's
   * uniqueIdParameter (`unit`); undefined when no experiment ran or the value was missing.
   */
  experiment?: { id: string; variant: string; unit: string } | undefined;
}

/** The stored row of a response signal: the shopper's id and session only as keyed hashes. */
export function searchSignalRow(signal: ResponseSignal, hasher: ShopperHasher): SearchSignalTable {
  const userHash = hasher.hash(signal.user);
  const unit = signal.experiment?.unit;
  return {
    id: signal.queryId,
    app: signal.app,
    profile_id: signal.profileId,
    collection: signal.collection,
    at: signal.at,
    query: signal.query,
    query_key: termKey(signal.query),
    rewritten: signal.rewritten,
    hits: signal.hits,
    doc_ids: JSON.stringify(signal.docIds),
    rule_ids: JSON.stringify(signal.ruleIds),
    segment: signal.segments.length === 0 ? null : signal.segments.join(','),
    user_hash: userHash,
    session_hash: hasher.hash(signal.session),
    counted: signal.counted ? 1 : 0,
    experiment: signal.experiment?.id ?? null,
    variant: signal.experiment?.variant ?? null,
    // By default the experiment's parameter is the shopper's id: one keyed hash serves both.
    unit_hash: unit === undefined ? null : unit === signal.user ? userHash : hasher.hash(unit),
  };
}

const FLUSH_MS = 1000;
// Beyond this many rows waiting (a database that stopped answering), new ones are dropped
// and counted, so memory stays bounded.
const MAX_PENDING = 100_000;

export class SearchSignalBatch {
  #pending: SearchSignalTable[] = [];
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly log: FastifyBaseLogger,
    private readonly metrics: SignalMetrics,
    private readonly hasher: ShopperHasher,
    private readonly flushMs = FLUSH_MS,
  ) {}

  /** Queues one response signal for the next write (hashed now: no shopper's value waits in memory). */
  add(signal: ResponseSignal): void {
    this.addRow(searchSignalRow(signal, this.hasher));
  }

  /** Queues a row already made (tests set searches up this way). */
  addRow(row: SearchSignalTable): void {
    if (this.#pending.length >= MAX_PENDING) {
      this.metrics.searchSignals.inc({ outcome: 'dropped' });
      return;
    }
    this.#pending.push(row);
  }

  /** How many response signals wait for the next write. */
  get pending(): number {
    return this.#pending.length;
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.flush(), this.flushMs);
    this.#timer.unref();
  }

  /** Writes what is pending (what was added before the call included); one write at a time. Never throws. */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(() => this.#flushOnce());
    return this.#flushing;
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }

  async #flushOnce(): Promise<void> {
    if (this.#pending.length === 0) return;
    const rows = this.#pending;
    this.#pending = [];
    try {
      await insertSearchSignals(this.db, rows);
      this.metrics.searchSignals.inc({ outcome: 'written' }, rows.length);
    } catch (error) {
      this.metrics.searchSignals.inc({ outcome: 'lost' }, rows.length);
      this.log.warn({ err: error, rows: rows.length }, 'response signals not written');
    }
  }
}
