// What the history records of rule changes: one event per single edit, one per bulk chunk.

import { clientActor } from '../history/actor.js';
import type { ChangeEvent } from '../history/service.js';
import type { Actor } from '../oauth/actor.js';
import type { RuleChange } from './rule-edits.js';

/** The event of one edit through the Rules API (`create`, `update`, `delete`, `publish`, …). */
export function ruleEvent(actor: Actor, action: string, change: RuleChange, at: Date): ChangeEvent {
  const { rule } = change.stored;
  const removed = change.removed ? ' (removed)' : '';
  return {
    actor: clientActor(actor),
    action,
    object: `rule:${rule.id}`,
    summary: `${action} rule ${rule.id}${removed}`,
    ...(change.previous || change.removed ? { before: (change.previous ?? change.stored).rule } : {}),
    ...(change.removed ? {} : { after: rule }),
    at,
  };
}

/** The event of one committed chunk of a bulk operation: the rules it changed, not their contents. */
export function bulkChunkEvent(
  actor: Actor,
  operationId: string,
  changes: RuleChange[],
  at: Date,
): ChangeEvent {
  return {
    actor: clientActor(actor),
    action: 'bulk',
    object: `rule-bulk:${operationId}`,
    summary: `bulk operation ${operationId}: ${changes.length} rules changed`,
    after: {
      changed: changes.filter((c) => !c.removed).map((c) => c.stored.rule.id),
      removed: changes.filter((c) => c.removed).map((c) => c.stored.rule.id),
    },
    at,
  };
}
