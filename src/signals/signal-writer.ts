// The writes of posted signals, grouped across requests: the requests that ask while a write
// runs are stored together by the next, in one transaction (one commit, one sync to disk) after
// one attribution read per kind of shopper key. A write starts at the next turn of the event
// loop after a request asks, so a lone request is stored at once; while other requests to the
// route are still being read and checked it waits for them, at most MAX_WAIT_MS (on SQLite a
// write holds the event loop, so none would arrive during it): busy senders share commits.
// Each request learns the fate of its own rows only: its promise settles once they are
// committed, and when a group fails its requests are written again one by one, so that a
// failure is answered to the request whose rows caused it (a database that cannot work now
// fails them all at once).
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { inTransaction } from '../storage/transaction.js';
import { databaseFailure } from '../storage/unavailable.js';
import { completeSent, inferSearches, needsInference } from './attribution.js';
import { insertSignals } from './repository.js';
import type { SearchSignalBatch } from './search-signal-batch.js';
import type { SignalMetrics } from './signal-metrics.js';
import type { SignalTable } from './tables.js';

/** Where signals are posted: an app and one of its collections. */
export interface SignalsTarget {
  readonly app: string;
  readonly collection: string;
}

interface Request {
  readonly target: SignalsTarget;
  readonly rows: SignalTable[];
  /** When it asked (performance.now()). */
  readonly since: number;
  resolve(): void;
  reject(error: unknown): void;
}

// How long the waiting requests wait at most for those still being read: a few times the
// reading and checking of a 1,000-signal body.
const MAX_WAIT_MS = 10;
// Writes at once on an asynchronous driver.
const MAX_CONCURRENT_WRITES = 2;

// Signals one write takes at most: a few full requests, so that one transaction (and, on
// SQLite, the event loop it holds) stays short.
const MAX_ROWS_PER_WRITE = 4000;

export class SignalWriter {
  #waiting: Request[] = [];
  #arriving = 0;
  #scheduled = false;
  #timer: NodeJS.Timeout | undefined;
  #writes = 0;
  readonly #maxWrites: number;

  /**
   * `synchronousDriver`: statements run on the event loop (SQLite), so one write at a time.
   * Otherwise (PostgreSQL) two may run at once, on two connections, so that the database works
   * on one while this node reads the next requests and the other is committed.
   */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly searchSignals: SearchSignalBatch,
    private readonly metrics: SignalMetrics,
    synchronousDriver: boolean,
  ) {
    this.#maxWrites = synchronousDriver ? 1 : MAX_CONCURRENT_WRITES;
  }

  /**
   * Stores the rows of one request, with the next write: resolves once they are committed,
   * rejects with the error that kept them from it. Attribution fills their search columns.
   */
  write(target: SignalsTarget, rows: SignalTable[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ target, rows, since: performance.now(), resolve, reject });
      this.#schedule();
    });
  }

  /**
   * Tells that a request to the route has come and is being read: writes wait for it (a
   * little). The function answered says it is done (it asked to write, or was refused); calling
   * it again does nothing.
   */
  arrive(): () => void {
    this.#arriving++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#arriving--;
      if (this.#arriving === 0) this.#schedule();
    };
  }

  /** How many requests wait for the next write. */
  get waiting(): number {
    return this.#waiting.length;
  }

  // At the next turn of the event loop, once the requests whose bodies were read with this
  // one have asked too; later while others are still being read, up to MAX_WAIT_MS.
  #schedule(): void {
    if (this.#scheduled || this.#writes >= this.#maxWrites || this.#waiting.length === 0) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#startOrWait();
    });
  }

  #startOrWait(): void {
    if (this.#writes >= this.#maxWrites || this.#waiting.length === 0) return;
    const waited = performance.now() - this.#waiting[0]!.since;
    if (this.#arriving > 0 && waited < MAX_WAIT_MS) {
      this.#timer ??= setTimeout(() => {
        this.#timer = undefined;
        this.#startOrWait();
      }, MAX_WAIT_MS - waited);
      return;
    }
    clearTimeout(this.#timer);
    this.#timer = undefined;
    void this.#drain();
  }

  async #drain(): Promise<void> {
    this.#writes++;
    try {
      while (this.#waiting.length > 0) await this.#writeGroup(this.#takeGroup());
    } finally {
      this.#writes--;
    }
    // Asked while the last group was being written, after the loop looked: written next.
    this.#schedule();
  }

  #takeGroup(): Request[] {
    let rows = 0;
    let taken = 0;
    while (
      taken < this.#waiting.length &&
      (taken === 0 || rows + this.#waiting[taken]!.rows.length <= MAX_ROWS_PER_WRITE)
    ) {
      rows += this.#waiting[taken]!.rows.length;
      taken++;
    }
    return this.#waiting.splice(0, taken);
  }

  async #writeGroup(group: readonly Request[]): Promise<void> {
    try {
      await this.#store(group);
    } catch (error) {
      // A database that cannot work now fails every request alike: writing each again would
      // only wait on it once more per request.
      if (group.length === 1 || databaseFailure(error) !== undefined) {
        for (const request of group) request.reject(error);
        return;
      }
      // Whose rows failed: each request alone, so that the others are stored and answered.
      for (const request of group) {
        try {
          await this.#store([request]);
        } catch (own) {
          request.reject(own);
          continue;
        }
        request.resolve();
      }
      return;
    }
    for (const request of group) request.resolve();
  }

  /** Ties the requests' signals to their searches, then stores them all in one transaction. */
  async #store(group: readonly Request[]): Promise<void> {
    const rows = group.flatMap((request) => request.rows);
    const lookups = rows.some((row) => needsInference(row) || row.attribution === 'sent');
    // A search answered on this node a moment ago may still wait in the batch: written first,
    // so the click finds it. (One answered on another node is written there within a second.)
    if (lookups) await this.searchSignals.flush();
    for (const [target, theirs] of byKey(group, (t) => `${t.app}\u0000${t.collection}`)) {
      await inferSearches(this.db, target.app, target.collection, theirs);
    }
    for (const [target, theirs] of byKey(group, (t) => t.app)) {
      await completeSent(this.db, target.app, theirs);
    }
    await inTransaction(this.db, (trx) => insertSignals(trx, rows));
    this.metrics.writes.inc();
    const byAttribution = new Map<string, number>();
    for (const row of rows) {
      if (row.doc_id === null) continue;
      const attribution = row.attribution ?? 'none';
      byAttribution.set(attribution, (byAttribution.get(attribution) ?? 0) + 1);
    }
    for (const [attribution, count] of byAttribution) this.metrics.attribution.inc({ attribution }, count);
  }
}

/** The rows of the requests grouped by a key of their target, with one target of each group. */
function byKey(
  group: readonly Request[],
  key: (target: SignalsTarget) => string,
): Array<[SignalsTarget, SignalTable[]]> {
  const groups = new Map<string, [SignalsTarget, SignalTable[]]>();
  for (const request of group) {
    const k = key(request.target);
    const entry = groups.get(k);
    if (entry) entry[1].push(...request.rows);
    else groups.set(k, [request.target, [...request.rows]]);
  }
  return [...groups.values()];
}
