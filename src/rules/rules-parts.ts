// The rules area's stateful parts: webhook delivery (the outbox's sender), the
// bulk runner (operations in the background) and the area's metrics. Built once per app in buildApp,
// passed to the area, and stopped when the app closes.
import type { AppContext } from '../http/area.js';
import { SecretBox } from '../security/secret-box.js';
import { BulkRunner } from './bulk.js';
import { RulesMetrics } from './rules-metrics.js';
import { WebhookDelivery } from './webhook-delivery.js';

/**
 * Told, once committed, that a studio's live rules changed (evaluation updates its index);
 * `ruleIds` names the rules whose live content, deletion mark or existence changed.
 */
export type LiveChangeListener = (studioId: string, ruleIds: readonly string[]) => Promise<void>;

export interface RulesParts {
  metrics: RulesMetrics;
  webhooks: WebhookDelivery;
  bulk: BulkRunner;
  liveChanged: LiveChangeListener;
  /** Stops bulk work between chunks, then webhook delivery. */
  close(): Promise<void>;
}

export function rulesParts(
  ctx: AppContext,
  liveChanged: LiveChangeListener = async () => {},
  wrote: (rows: number) => void = () => {},
): RulesParts {
  const { db } = ctx.store;
  const { syncRetryDelaysMs: delays, syncPollMs } = ctx.tuning;
  const webhooks = new WebhookDelivery(db, new SecretBox(ctx.secretKey), ctx.log, ctx.now, ctx.metrics, {
    ...(delays ? { retryDelaysMs: [...delays], timeoutMs: 2_000 } : {}),
    ...(syncPollMs ? { pollMs: syncPollMs } : {}),
  });
  const metrics = new RulesMetrics(ctx.metrics);
  const bulk = new BulkRunner(ctx.log, ctx.now, webhooks, metrics, liveChanged, wrote);
  return {
    metrics,
    webhooks,
    bulk,
    liveChanged,
    close: async () => {
      await bulk.close();
      await webhooks.close();
    },
  };
}
