// The state of the signals on one node: the batch of response signals the query path fills,
// the writer that groups the posted signals of concurrent requests, the shopper-hash key, the metrics, the retention job and the posted signals still being
// written after an `async=true` answer. Built in buildApp, stopped with the app. Nothing here
// is needed by another node: every signal is in the database once written.
import type { AppContext } from '../http/area.js';
import type { ScheduledJob } from '../jobs/scheduled-job.js';
import { signalsRetentionJob } from './retention.js';
import { SearchSignalBatch } from './search-signal-batch.js';
import { ShopperHasher } from './shopper-hash.js';
import { SignalMetrics } from './signal-metrics.js';
import { SignalWriter } from './signal-writer.js';

export class SignalsParts {
  readonly metrics: SignalMetrics;
  readonly hasher: ShopperHasher;
  readonly searchSignals: SearchSignalBatch;
  readonly writer: SignalWriter;
  readonly retention: ScheduledJob;
  readonly #writing = new Set<Promise<void>>();

  constructor(ctx: AppContext) {
    this.metrics = new SignalMetrics(ctx.metrics);
    this.hasher = new ShopperHasher(ctx.secretKey);
    this.searchSignals = new SearchSignalBatch(
      ctx.store.db,
      ctx.log,
      this.metrics,
      this.hasher,
      ctx.tuning.searchLogFlushMs,
    );
    this.writer = new SignalWriter(
      ctx.store.db,
      this.searchSignals,
      this.metrics,
      ctx.store.synchronousDriver,
    );
    this.retention = signalsRetentionJob(ctx);
  }

  start(): void {
    this.searchSignals.start();
    this.retention.start();
  }

  /** Follows a write the request did not wait for, so that stopping waits for it. */
  track(write: Promise<void>): void {
    this.#writing.add(write);
    void write.finally(() => this.#writing.delete(write));
  }

  /** Writes everything still held: the pending response signals and the async writes. */
  async stop(): Promise<void> {
    await this.retention.stop();
    await Promise.allSettled([...this.#writing]);
    await this.searchSignals.stop();
  }
}
