// Delivery of rule contents to a studio's sync targets (webhooks): each change
// of staging or live is POSTed as JSON to every target, retried with backoff.
// The rule row records which version reached the targets, so a delivery always
// sends the current content and a late retry never moves the status backwards.
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { studiosWithSyncTargets, syncTargetsOf } from '../studios/service.js';
import { recordSync, selectRule, selectUndeliveredRules } from './repository.js';
import type { StoredRule } from './rule-rows.js';

export interface WebhookDeliveryOptions {
  /** Waits before each retry; after the last one the version is FAILED. */
  retryDelaysMs: number[];
  timeoutMs: number;
}

const DEFAULTS: WebhookDeliveryOptions = { retryDelaysMs: [1_000, 5_000, 30_000, 120_000], timeoutMs: 5_000 };

type Stage = 'staging' | 'live';

// Deliveries of a bulk chunk under way together.
const DELIVERIES_AT_ONCE = 16;

/** Sends rule changes to sync targets in the background; one per app. */
export class WebhookDelivery {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  private closed = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly log: FastifyBaseLogger,
    private readonly now: () => Date,
    private readonly options: WebhookDeliveryOptions = DEFAULTS,
  ) {}

  /** A rule's staging or live changed: deliver the versions its targets have not had. */
  changed(studioId: string, ruleId: string): void {
    this.schedule(0, () => this.deliverRule(studioId, ruleId, 0));
  }

  /**
   * Many changes in one studio (a bulk chunk): one task reads the targets once, then
   * delivers a few rules at a time. A task per rule would run all at once, holding
   * the event loop while hundreds of them read the studio and the rule.
   */
  changedMany(studioId: string, changes: ReadonlyArray<{ stored: StoredRule; removed: boolean }>): void {
    this.schedule(0, async () => {
      if ((await this.targets(studioId)).length === 0) return;
      for (let i = 0; i < changes.length && !this.closed; i += DELIVERIES_AT_ONCE) {
        await Promise.all(
          changes.slice(i, i + DELIVERIES_AT_ONCE).map(async ({ stored, removed }) => {
            if (removed) this.removed(stored);
            else await this.deliverRule(studioId, stored.rule.id, 0);
          }),
        );
      }
    });
  }

  /** A rule was removed: tell the targets both contents are gone. */
  removed(stored: StoredRule): void {
    const { studioId, id } = stored.rule;
    for (const stage of ['staging', 'live'] as const) {
      const payload = { event: 'rule.removed', studioId, ruleId: id, stage, version: null, content: null };
      this.schedule(0, () => this.deliverRemoval(studioId, payload, 0));
    }
  }

  /**
   * Picks up deliveries a stopped node left unfinished (retries live only in memory). With
   * several nodes each one does, so a target may get a version twice: deliveries are at least
   * once, and a payload carries its version for the target to spot repeats.
   */
  async resume(): Promise<void> {
    const run = this.redeliver().finally(() => this.running.delete(run));
    this.running.add(run);
    await run;
  }

  // One rule after another: a restart's backlog must not flood the targets or the database.
  private async redeliver(): Promise<void> {
    for (const studioId of await studiosWithSyncTargets(this.db)) {
      let afterId = '';
      while (!this.closed) {
        const page = await selectUndeliveredRules(this.db, studioId, afterId, 500);
        for (const id of page) {
          if (this.closed) return;
          await this.deliverRule(studioId, id, 0).catch((error: unknown) =>
            this.log.warn({ err: error }, 'rule sync failed'),
          );
        }
        if (page.length < 500) break;
        afterId = page.at(-1)!;
      }
    }
  }

  /** Stops retrying and waits for deliveries under way. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.running]);
  }

  private schedule(delayMs: number, task: () => Promise<void>): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      const run = task()
        .catch((error: unknown) => this.log.warn({ err: error }, 'rule sync failed'))
        .finally(() => this.running.delete(run));
      this.running.add(run);
    }, delayMs);
    this.timers.add(timer);
  }

  private async deliverRule(studioId: string, ruleId: string, attempt: number): Promise<void> {
    const targets = await this.targets(studioId);
    const stored = await selectRule(this.db, studioId, ruleId);
    if (targets.length === 0 || !stored) return;
    const { rule, meta } = stored;
    const stages: Array<[Stage, number, unknown]> = [];
    if (meta.stagingSyncedVersion !== meta.stagingVersion)
      stages.push(['staging', meta.stagingVersion, rule.staging]);
    // Live version 0 is "never published": nothing to deliver.
    if (meta.liveVersion > 0 && meta.liveSyncedVersion !== meta.liveVersion)
      stages.push(['live', meta.liveVersion, rule.live]);
    let failed = false;
    for (const [stage, version, content] of stages) {
      const payload = { event: 'rule.changed', studioId, ruleId: rule.id, stage, version, content };
      const ok = await this.post(targets, payload);
      if (ok) await recordSync(this.db, rule.id, stage, version, { ok: true, at: this.now().toISOString() });
      else if (attempt >= this.options.retryDelaysMs.length)
        await recordSync(this.db, rule.id, stage, version, { ok: false });
      failed ||= !ok;
    }
    if (failed && attempt < this.options.retryDelaysMs.length) {
      this.schedule(this.options.retryDelaysMs[attempt]!, () =>
        this.deliverRule(studioId, ruleId, attempt + 1),
      );
    }
  }

  private async deliverRemoval(studioId: string, payload: object, attempt: number): Promise<void> {
    const targets = await this.targets(studioId);
    if (targets.length === 0 || (await this.post(targets, payload))) return;
    if (attempt < this.options.retryDelaysMs.length) {
      this.schedule(this.options.retryDelaysMs[attempt]!, () =>
        this.deliverRemoval(studioId, payload, attempt + 1),
      );
    }
  }

  private targets(studioId: string): Promise<string[]> {
    return syncTargetsOf(this.db, studioId);
  }

  /** Whether every target took the payload (a 2xx answer in time). */
  private async post(targets: string[], payload: object): Promise<boolean> {
    const answers = await Promise.all(
      targets.map((url) =>
        fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(payload),
          signal: AbortSignal.timeout(this.options.timeoutMs),
        })
          .then(async (response) => {
            await response.body?.cancel();
            return response.ok;
          })
          .catch(() => false),
      ),
    );
    return answers.every(Boolean);
  }
}
