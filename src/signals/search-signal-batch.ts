// The response signals of the query endpoint: one row per answered query, kept in memory and
// written together at least every second and when the server stops, as search logs are, so
// a query never waits on the database. A crash loses at most the last second of them. A
// click posted meanwhile for one of them flushes the batch first (signals/service.ts).
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { insertSearchSignals } from './repository.js';
import type { SignalMetrics } from './signal-metrics.js';
import type { SearchSignalTable } from './tables.js';

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
    private readonly flushMs = FLUSH_MS,
  ) {}

  /** Queues one response signal for the next write. */
  add(row: SearchSignalTable): void {
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
