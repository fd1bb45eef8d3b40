// What the history records of rewrite changes: one event per single edit, one per bulk request.
import { clientActor } from '../history/actor.js';
import type { ChangeEvent } from '../history/service.js';
import type { Actor } from '../oauth/actor.js';
import type { RewriteChange } from './rewrite-edits.js';
import type { StoredRewrite } from './rewrite-record.js';

/** The event of one edit; `before` is the rewrite as read before it (none for a create). */
export function rewriteEvent(
  actor: Actor,
  action: string,
  after: StoredRewrite | undefined,
  before: StoredRewrite | undefined,
  at: Date,
): ChangeEvent {
  const id = (after ?? before)?.id;
  return {
    actor: clientActor(actor),
    action,
    object: `rewrite:${id}`,
    summary: `${action} query rewrite ${id}${after ? '' : ' (removed)'}`,
    ...(before ? { before } : {}),
    ...(after ? { after } : {}),
    at,
  };
}

/** The event of one bulk request: the rewrites it created and changed, not their contents. */
export function rewriteBulkEvent(
  actor: Actor,
  created: string[],
  changes: RewriteChange[],
  at: Date,
): ChangeEvent {
  return {
    actor: clientActor(actor),
    action: 'bulk',
    object: `studio:${actor.studioId}`,
    summary: `bulk rewrites: ${created.length} created, ${changes.length} changed`,
    after: {
      created,
      changed: changes.filter((c) => !c.removed).map((c) => c.rewrite.id),
      removed: changes.filter((c) => c.removed).map((c) => c.rewrite.id),
    },
    at,
  };
}
