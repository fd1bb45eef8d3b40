// The rule-sync outbox seen from the domain: which deliveries a change makes (written in
// the change's own transaction), and a studio's deliveries as the Administrative API lists them.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { getStudio, syncTargetsOf } from '../studios/service.js';
import { type DeliveryRow, insertDeliveries, selectStudioDeliveries } from './delivery-repository.js';
import type { RuleChange } from './rule-edits.js';
import type { StoredRule } from './rule-rows.js';

export type Stage = 'staging' | 'live';
export type DeliveryEvent = 'rule.changed' | 'rule.removed';
export const DELIVERY_STATUSES = ['PENDING', 'DELIVERED', 'SKIPPED', 'FAILED'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One delivery as listed. */
export interface Delivery {
  id: string;
  ruleId: string;
  event: DeliveryEvent;
  stage: Stage;
  status: DeliveryStatus;
  attempts: number;
  /** When a pending delivery is tried next; null once it ended. */
  nextAttemptAt: string | null;
  lastError: string | null;
  createdAt: string;
  finishedAt: string | null;
}

/** The stages of a rule whose current version has not reached the targets. */
export function undeliveredStages({ meta }: StoredRule): Stage[] {
  const stages: Stage[] = [];
  if (meta.stagingSyncedVersion !== meta.stagingVersion) stages.push('staging');
  // Live version 0 is "never published": nothing to deliver.
  if (meta.liveVersion > 0 && meta.liveSyncedVersion !== meta.liveVersion) stages.push('live');
  return stages;
}

/**
 * Writes the deliveries of a studio's changes, in the caller's transaction, so that a
 * change is never committed without them. None when the studio has no sync targets.
 */
export async function enqueueRuleChanges(
  trx: Kysely<Database>,
  studioId: string,
  changes: ReadonlyArray<RuleChange>,
  now: Date,
): Promise<number> {
  if (changes.length === 0 || (await syncTargetsOf(trx, studioId)).length === 0) return 0;
  const at = now.toISOString();
  const rows = changes.flatMap(({ stored, removed }) => {
    const stages: Stage[] = removed ? ['staging', 'live'] : undeliveredStages(stored);
    return stages.map((stage) => ({
      id: randomUUID(),
      studio_id: studioId,
      rule_id: stored.rule.id,
      event: removed ? 'rule.removed' : 'rule.changed',
      stage,
      status: 'PENDING',
      attempts: 0,
      next_attempt_at: at,
      claimed_by: null,
      last_error: null,
      created_at: at,
      finished_at: null,
    }));
  });
  await insertDeliveries(trx, rows);
  return rows.length;
}

/** A page of a studio's deliveries, newest first; NotFoundError for an unknown studio. */
export async function listDeliveries(
  db: Kysely<Database>,
  studioId: string,
  query: { status?: DeliveryStatus | undefined; limit: number; offset: number },
): Promise<Delivery[]> {
  await getStudio(db, studioId);
  return (await selectStudioDeliveries(db, studioId, query)).map(toDelivery);
}

function toDelivery(row: DeliveryRow): Delivery {
  return {
    id: row.id,
    ruleId: row.rule_id,
    event: row.event as DeliveryEvent,
    stage: row.stage as Stage,
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    nextAttemptAt: row.status === 'PENDING' ? row.next_attempt_at : null,
    lastError: row.last_error,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
  };
}
