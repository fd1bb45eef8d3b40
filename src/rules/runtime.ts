// The rules area's per-app machinery: token keys, webhook delivery, bulk work.
// Shared by its admin and public routes, created once per app context.
import type { AppContext } from '../http/area.js';
import { BulkRunner } from './bulk.js';
import { externalIssuerSettings } from './external-issuer.js';
import { SyncQueue } from './sync.js';
import { TokenService } from './tokens.js';

export interface RulesRuntime {
  tokens: TokenService;
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
      tokens: new TokenService(db, ctx.secretKey, ctx.now, externalIssuerSettings(ctx.config)),
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
