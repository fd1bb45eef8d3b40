// The rules area's per-app machinery: webhook delivery, bulk work.
// Shared by its admin and public routes, created once per app context.
import type { AppContext } from '../http/area.js';
import { BulkRunner } from './bulk.js';
import { SyncQueue } from './sync.js';

export interface RulesRuntime {
  sync: SyncQueue;
  bulk: BulkRunner;
  close(): Promise<void>;
}

const runtimes = new WeakMap<AppContext, RulesRuntime>();

/** The runtime of an app (the same object for its admin and public routes). */
export function rulesRuntime(ctx: AppContext): RulesRuntime {
  let runtime = runtimes.get(ctx);
  if (!runtime) {
    const { db } = ctx.store;
    const delays = ctx.tuning.syncRetryDelaysMs;
    const sync = new SyncQueue(
      db,
      ctx.log,
      ctx.now,
      delays ? { retryDelaysMs: [...delays], timeoutMs: 2_000 } : undefined,
    );
    const bulk = new BulkRunner(db, ctx.log, ctx.now, sync);
    runtime = {
      sync,
      bulk,
      close: async () => {
        await bulk.close();
        await sync.close();
      },
    };
    runtimes.set(ctx, runtime);
  }
  return runtime;
}
