// Rules as answered: the record (staging content, read-only fields, live content)
// and the additional fields a listing or GET asks for with `fields`.
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { syncTargetsOf } from '../studios/service.js';
import type { ExtraField } from './listing-terms.js';
import { conflictsOfPage } from './page-conflicts.js';
import { isMarkedForDeletion, publishState, type RuleContent, ruleTargetedDocuments } from './rule.js';
import type { StoredRule } from './rule-rows.js';
import type { RuleResponse } from './schemas.js';

type SyncStatus = NonNullable<RuleResponse['stagingSyncStatus']>;

/** The record of a rule with its staging content; `extras` adds the asked-for fields. */
export function presentRule(stored: StoredRule, extras: Partial<RuleResponse> = {}): RuleResponse {
  const { rule } = stored;
  return {
    ...contentFields(rule.staging),
    id: rule.id,
    externalId: rule.externalId,
    contentType: rule.contentType,
    createdBy: rule.createdBy,
    creationDate: rule.creationDate,
    lastModifiedBy: rule.lastModifiedBy,
    lastModified: rule.lastModified,
    published: rule.live !== null,
    publishState: publishState(rule),
    markedForDeletion: isMarkedForDeletion(rule),
    liveContent: rule.live === null ? null : contentFields(rule.live),
    ...extras,
  } as RuleResponse;
}

function contentFields(content: RuleContent): RuleResponse['liveContent'] & object {
  return content as RuleResponse['liveContent'] & object;
}

/** The additional fields of each rule, computed for a whole page at once. */
export async function extrasOf(
  db: Kysely<Database>,
  studioId: string,
  rules: StoredRule[],
  fields: Set<ExtraField>,
): Promise<Map<string, Partial<RuleResponse>>> {
  const extras = new Map(rules.map(({ rule }) => [rule.id, {} as Partial<RuleResponse>]));
  if (fields.size === 0) return extras;
  const targets = fields.has('PLATFORM_SYNC_STATUS') ? await syncTargetsOf(db, studioId) : [];
  const conflicts = fields.has('CONFLICTS')
    ? await conflictsOfPage(
        db,
        studioId,
        rules.map(({ rule }) => rule),
      )
    : undefined;
  for (const stored of rules) {
    const extra = extras.get(stored.rule.id)!;
    if (fields.has('TARGETED_DOCUMENTS')) extra.targetedDocuments = ruleTargetedDocuments(stored.rule);
    const found = conflicts?.get(stored.rule.id);
    if (found) {
      extra.conflicts = found.conflicts;
      extra.conflictsTruncated = found.truncated;
    }
    if (fields.has('IS_PENDING_BULK_OPERATION'))
      extra.isPendingBulkOperation = stored.meta.bulkOperationId !== null;
    if (fields.has('PLATFORM_SYNC_STATUS')) {
      extra.stagingSyncStatus = syncStatus(targets.length > 0, stored, 'staging');
      extra.liveSyncStatus = syncStatus(targets.length > 0, stored, 'live');
    }
    if (fields.has('MIGRATION')) extra.migratedId = stored.rule.migratedId;
  }
  return extras;
}

function syncStatus(configured: boolean, { meta }: StoredRule, stage: 'staging' | 'live'): SyncStatus {
  const version = stage === 'staging' ? meta.stagingVersion : meta.liveVersion;
  const synced = stage === 'staging' ? meta.stagingSyncedVersion : meta.liveSyncedVersion;
  const failed = stage === 'staging' ? meta.stagingFailedVersion : meta.liveFailedVersion;
  const lastSyncedAt = stage === 'staging' ? meta.stagingSyncedAt : meta.liveSyncedAt;
  let status: SyncStatus['status'] = 'PENDING';
  if (!configured) status = 'NOT_CONFIGURED';
  // A never-published rule has no live content to deliver (version 0).
  else if (synced === version || version === 0) status = 'SYNCED';
  else if (failed === version) status = 'FAILED';
  return { version, lastSyncedVersion: synced, status, lastSyncedAt };
}
