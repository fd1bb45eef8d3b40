// Delivery of rule contents to a studio's sync targets (webhooks), from the outbox that
// every change writes in its own transaction (deliveries.ts). Each node polls for due
// deliveries, claims one with a conditional update (so no two nodes send it at once), POSTs
// it signed to every target, and records the outcome: delivered, or tried again later with
// exponential backoff, or FAILED after the last attempt. The rule row records which version
// reached the targets, so a delivery sends the current content and a late one never moves
// the status backwards.
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { type SecretBox, SecretBoxError } from '../security/secret-box.js';
import type { Database } from '../storage/schema.js';
import { type SyncTarget, syncTargetsWithSecrets } from '../studios/sync-target-secrets.js';
import type { Stage } from './deliveries.js';
import {
  claimDelivery,
  countPending,
  type DeliveryRow,
  deleteFinishedBefore,
  recordAttempt,
  selectDue,
  selectEarliestDue,
} from './delivery-repository.js';
import { recordSync, selectRule } from './repository.js';
import { webhookHeaders } from './webhook-signature.js';

export interface WebhookDeliveryOptions {
  /** Waits before each retry; after the last one the delivery (and its version) is FAILED. */
  retryDelaysMs: number[];
  /** Bound of one POST. */
  timeoutMs: number;
  /** Longest wait between two looks at the outbox (changes on this node wake it at once). */
  pollMs: number;
}

/** Exponential backoff: 1 s, 4 s, 16 s, … capped at 10 min; 9 attempts over about 35 minutes. */
export function backoffDelays(firstMs = 1_000, factor = 4, capMs = 600_000, retries = 8): number[] {
  return Array.from({ length: retries }, (_, i) => Math.min(firstMs * factor ** i, capMs));
}

const DEFAULTS: WebhookDeliveryOptions = { retryDelaysMs: backoffDelays(), timeoutMs: 5_000, pollMs: 1_000 };

// How long ended deliveries stay listed, and how often a node clears older ones.
export const KEEP_FINISHED_MS = 30 * 24 * 3_600_000;
const PURGE_EVERY_MS = 3_600_000;

// Deliveries one node sends at once, and claims per look at the outbox.
const DELIVERIES_AT_ONCE = 16;
const CLAIMS_PER_PASS = 64;

/** What one attempt came to. */
type Posted = { sent: true } | { sent: false; error: string };
type Outcome = Posted | { skipped: string };

/** Sends the outbox's deliveries to the sync targets; one per app, started when the app is ready. */
export class WebhookDelivery {
  readonly nodeId = randomUUID();
  private readonly options: WebhookDeliveryOptions;
  private readonly failures: Counter;
  private readonly durations: Histogram;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private woken = false;
  private closed = false;
  private lastPurge = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly box: SecretBox,
    private readonly log: FastifyBaseLogger,
    private readonly now: () => Date,
    metrics: Registry,
    options: Partial<WebhookDeliveryOptions> = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
    const pending = () => countPending(db);
    new Gauge({
      name: 'searchdeck_webhook_deliveries_pending',
      help: 'Deliveries to sync targets waiting in the outbox (all nodes)',
      registers: [metrics],
      // Read at each scrape; a database that does not answer shows as NaN rather than
      // failing the whole scrape.
      async collect() {
        this.set(await pending().catch(() => NaN));
      },
    });
    this.failures = new Counter({
      name: 'searchdeck_webhook_delivery_failures_total',
      help: 'POSTs to sync targets that did not answer 2xx in time',
      registers: [metrics],
    });
    this.durations = new Histogram({
      name: 'searchdeck_webhook_delivery_duration_seconds',
      help: 'Time of one POST to a sync target, answered or not',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [metrics],
    });
  }

  /** Starts looking at the outbox, now and whenever a delivery comes due. */
  start(): void {
    if (this.loop || this.closed) return;
    this.loop = this.run();
  }

  /** A change was committed here: look at the outbox now rather than at the next poll. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Stops looking and waits for the deliveries under way. */
  async close(): Promise<void> {
    this.closed = true;
    this.wake();
    await this.loop;
  }

  /** One look at the outbox: sends every delivery due now that this node can claim. */
  async sendDue(): Promise<number> {
    let sent = 0;
    while (!this.closed) {
      const due = await selectDue(this.db, this.now().toISOString(), CLAIMS_PER_PASS);
      for (let i = 0; i < due.length && !this.closed; i += DELIVERIES_AT_ONCE) {
        const results = await Promise.all(
          due.slice(i, i + DELIVERIES_AT_ONCE).map((row) => this.claimAndSend(row)),
        );
        sent += results.filter(Boolean).length;
      }
      if (due.length < CLAIMS_PER_PASS) break;
    }
    return sent;
  }

  /** Clears the deliveries that ended more than KEEP_FINISHED_MS ago; idempotent, so every node may. */
  purgeFinished(): Promise<number> {
    return deleteFinishedBefore(this.db, new Date(this.now().getTime() - KEEP_FINISHED_MS).toISOString());
  }

  private async run(): Promise<void> {
    while (!this.closed) {
      this.woken = false;
      let waitMs = this.options.pollMs;
      try {
        await this.sendDue();
        if (Date.now() - this.lastPurge >= PURGE_EVERY_MS) {
          this.lastPurge = Date.now();
          await this.purgeFinished();
        }
        const due = await selectEarliestDue(this.db);
        if (due !== undefined) waitMs = Math.min(waitMs, Math.max(Date.parse(due) - this.now().getTime(), 5));
      } catch (error) {
        this.log.warn({ err: error }, 'rule sync failed');
      }
      if (this.woken || this.closed) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitMs);
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = undefined;
    }
  }

  private async claimAndSend(due: Pick<DeliveryRow, 'id' | 'next_attempt_at'>): Promise<boolean> {
    // The claim outlasts every POST of one attempt (they run side by side).
    const until = new Date(this.now().getTime() + 2 * this.options.timeoutMs + 10_000).toISOString();
    const row = await claimDelivery(this.db, due.id, due.next_attempt_at, this.nodeId, until);
    if (!row) return false;
    await this.attempt(row).catch((error: unknown) =>
      this.log.warn({ err: error, delivery: row.id }, 'rule sync failed'),
    );
    return true;
  }

  private async attempt(row: DeliveryRow): Promise<void> {
    // A failure before any POST (a secret sealed under another key, the database) counts as
    // a failed attempt, so the delivery backs off and ends instead of coming back forever.
    const outcome = await this.send(row).catch(
      (error: unknown): Outcome => ({ sent: false, error: describe(error) }),
    );
    const at = this.now().toISOString();
    const attempts = row.attempts + ('skipped' in outcome ? 0 : 1);
    if ('skipped' in outcome) {
      await recordAttempt(this.db, row.id, this.nodeId, {
        status: 'SKIPPED',
        last_error: outcome.skipped,
        finished_at: at,
      });
    } else if (outcome.sent) {
      await recordAttempt(this.db, row.id, this.nodeId, {
        status: 'DELIVERED',
        attempts,
        last_error: null,
        finished_at: at,
      });
    } else if (attempts > this.options.retryDelaysMs.length) {
      await recordAttempt(this.db, row.id, this.nodeId, {
        status: 'FAILED',
        attempts,
        last_error: outcome.error,
        finished_at: at,
      });
    } else {
      const next = new Date(this.now().getTime() + this.options.retryDelaysMs[attempts - 1]!).toISOString();
      await recordAttempt(this.db, row.id, this.nodeId, {
        attempts,
        next_attempt_at: next,
        last_error: outcome.error,
      });
    }
  }

  /** Builds the delivery's message from the rule as it is now and POSTs it to every target. */
  private async send(row: DeliveryRow): Promise<Outcome> {
    const targets = await syncTargetsWithSecrets(this.db, this.box, row.studio_id);
    if (targets.length === 0) return { skipped: 'the studio has no sync targets' };
    const stage = row.stage as Stage;
    const base = { studioId: row.studio_id, ruleId: row.rule_id, stage };
    if (row.event === 'rule.removed') {
      // Restored since (under its id, from the history): what the targets need is its content,
      // which the restore's own delivery carries; a late removal would drop it there.
      if (await selectRule(this.db, row.studio_id, row.rule_id)) return { skipped: 'the rule was restored' };
      return this.post(targets, row.id, { event: 'rule.removed', ...base, version: null, content: null });
    }
    const stored = await selectRule(this.db, row.studio_id, row.rule_id);
    // Removed since: its removal is a delivery of its own.
    if (!stored) return { skipped: 'the rule was removed' };
    const { rule, meta } = stored;
    const version = stage === 'staging' ? meta.stagingVersion : meta.liveVersion;
    const synced = stage === 'staging' ? meta.stagingSyncedVersion : meta.liveSyncedVersion;
    if (version === 0 || synced === version) return { skipped: `version ${version} was already delivered` };
    const content = stage === 'staging' ? rule.staging : rule.live;
    const outcome = await this.post(targets, row.id, { event: 'rule.changed', ...base, version, content });
    const lastAttempt = row.attempts + 1 > this.options.retryDelaysMs.length;
    if (outcome.sent)
      await recordSync(this.db, rule.id, stage, version, { ok: true, at: this.now().toISOString() });
    else if (lastAttempt) await recordSync(this.db, rule.id, stage, version, { ok: false });
    return outcome;
  }

  /** POSTs one message to every target, each signed with its own secret; sent when all took it (2xx in time). */
  private async post(targets: SyncTarget[], id: string, payload: object): Promise<Posted> {
    const body = JSON.stringify(payload);
    const errors = await Promise.all(targets.map((target) => this.postOne(target, id, body)));
    const failed = errors.filter((error) => error !== undefined);
    return failed.length === 0 ? { sent: true } : { sent: false, error: failed.join('; ') };
  }

  /** Undefined when the target took it; otherwise what went wrong. */
  private async postOne(target: SyncTarget, id: string, body: string): Promise<string | undefined> {
    const stopTimer = this.durations.startTimer();
    const error = await fetch(target.url, {
      method: 'POST',
      headers: webhookHeaders(target.secret, id, this.now(), body),
      body,
      signal: AbortSignal.timeout(this.options.timeoutMs),
      // A redirect is the target's failure to take the message: following it would send the
      // signed body to an address nobody configured (or, after a 303, drop it).
      redirect: 'manual',
    })
      .then(async (response) => {
        await response.body?.cancel();
        return response.ok ? undefined : `${target.url} answered ${response.status}`;
      })
      .catch((cause: unknown) => `${target.url} did not answer: ${(cause as Error).message}`);
    stopTimer();
    if (error !== undefined) this.failures.inc();
    return error;
  }
}

function describe(error: unknown): string {
  if (error instanceof SecretBoxError) {
    return 'a sync target secret does not open with this secret key: rotate the secrets';
  }
  return `the delivery could not be prepared: ${(error as Error).message}`;
}
