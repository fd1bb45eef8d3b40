// Search logging of the query endpoint: counts kept in memory per typeahead instance and
// query, written through the typeahead's ingestion at least every second and at shutdown.
// A crash loses at most the last second of counts.
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { ingestSearches } from '../typeahead/search-log.js';

const FLUSH_MS = 1000;
// Beyond this many distinct queries waiting, new ones are not counted until the next flush.
const MAX_PENDING = 100_000;

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

  add(instanceId: string, query: string): void {
    const text = query.trim();
    if (text.length === 0) return;
    let counts = this.#pending.get(instanceId);
    if (!counts) {
      counts = new Map();
      this.#pending.set(instanceId, counts);
    }
    const known = counts.get(text);
    if (known !== undefined) counts.set(text, known + 1);
    else if (this.#size < MAX_PENDING) {
      counts.set(text, 1);
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
      const entries = [...counts].map(([query, count]) => ({ query, count }));
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
