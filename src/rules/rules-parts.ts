// The rules area's stateful parts: webhook delivery (timers, retries) and the
// bulk runner (operations in the background). Built once per app in buildApp,
// passed to the area, and stopped when the app closes.
import type { AppContext } from '../http/area.js';
import { BulkRunner } from './bulk.js';
import { WebhookDelivery } from './webhook-delivery.js';

export interface RulesParts {
  webhooks: WebhookDelivery;
  bulk: BulkRunner;
  /** Stops bulk work between chunks, then webhook delivery. */
  close(): Promise<void>;
}

export function rulesParts(ctx: AppContext): RulesParts {
  const { db } = ctx.store;
  const delays = ctx.tuning.syncRetryDelaysMs;
  const webhooks = new WebhookDelivery(
    db,
    ctx.log,
    ctx.now,
    delays ? { retryDelaysMs: [...delays], timeoutMs: 2_000 } : undefined,
  );
  const bulk = new BulkRunner(db, ctx.log, ctx.now, webhooks);
  return {
    webhooks,
    bulk,
    close: async () => {
      await bulk.close();
      await webhooks.close();
    },
  };
}
