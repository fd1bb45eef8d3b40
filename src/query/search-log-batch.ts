// Search logging of the query endpoint: counts kept in memory per typeahead instance and
// query, written through the typeahead's ingestion at least every second and at shutdown.
// A crash loses at most the last second of counts.
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { MAX_MIN_HITS } from '../typeahead/schemas.js';
import { ingestSearches } from '../typeahead/search-log.js';

const FLUSH_MS = 1000;
// Beyond this many distinct queries waiting, new ones are not counted until the next flush.
const MAX_PENDING = 100_000;
/** Hits beyond the largest `minHits` an instance may have change nothing: counted as that many. */
const HITS_CAP = MAX_MIN_HITS;

export class SearchLogBatch {
  #pending = new Map<string, Map<string, number>>();
  #size = 0;
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => Date,
    private readonly log: FastifyBaseLogger,
    private readonly flushMs = FLUSH_MS,
  ) {}

  /**
   * Counts one answered search of `query` that found `hits` documents. Searches are kept per
   * query and number of hits (up to HITS_CAP), so the instance's `minHits` decides at ingestion
   * which of them teach typeahead.
   */
  add(instanceId: string, query: string, hits: number): void {
    const text = query.trim();
    if (text.length === 0) return;
    let counts = this.#pending.get(instanceId);
    if (!counts) {
      counts = new Map();
      this.#pending.set(instanceId, counts);
    }
    const key = `${Math.min(hits, HITS_CAP)}\u0000${text}`;
    const known = counts.get(key);
    if (known !== undefined) counts.set(key, known + 1);
    else if (this.#size < MAX_PENDING) {
      counts.set(key, 1);
      this.#size++;
    }
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.flush(), this.flushMs);
    this.#timer.unref();
  }

  /** Writes what is pending; one flush at a time. Never throws. */
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
    if (this.#size === 0) return;
    const pending = this.#pending;
    this.#pending = new Map();
    this.#size = 0;
    const now = this.now();
    for (const [instanceId, counts] of pending) {
      const entries = [...counts].map(([key, count]) => {
        const separator = key.indexOf('\u0000');
        return { query: key.slice(separator + 1), count, hits: Number(key.slice(0, separator)) };
      });
      try {
        for (let i = 0; i < entries.length; i += 10_000) {
          await ingestSearches(this.db, instanceId, entries.slice(i, i + 10_000), now);
        }
      } catch (error) {
        this.log.warn({ err: error, typeahead: instanceId }, 'query search logging: counts not written');
      }
    }
  }
}
