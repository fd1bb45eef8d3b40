// A rule as rows: the rule row with its sort and filter columns, and the side
// rows (facets, words) the listing looks values up in. Both contents feed the
// side rows, as a filter matches when staging or live matches.
import type { Insertable, Selectable } from 'kysely';
import { publishState, type Rule, type RuleContent, targetedDocuments } from './rule.js';
import type { RuleFacetTable, RuleTable, RuleWordTable } from './tables.js';
import { searchableFields, textKey } from './text-search.js';

export type RuleRow = Selectable<RuleTable>;
export type FacetRow = Insertable<RuleFacetTable>;
export type WordRow = Insertable<RuleWordTable>;

/** Facts of a stored rule beside its contents: content versions, their delivery, bulk work. */
export interface RuleMeta {
  stagingVersion: number;
  stagingSyncedVersion: number | null;
  stagingSyncedAt: string | null;
  stagingFailedVersion: number | null;
  liveVersion: number;
  liveSyncedVersion: number | null;
  liveSyncedAt: string | null;
  liveFailedVersion: number | null;
  bulkOperationId: string | null;
}

export interface StoredRule {
  rule: Rule;
  meta: RuleMeta;
}

export const NEW_RULE_META: RuleMeta = {
  stagingVersion: 1,
  stagingSyncedVersion: null,
  stagingSyncedAt: null,
  stagingFailedVersion: null,
  liveVersion: 0,
  liveSyncedVersion: null,
  liveSyncedAt: null,
  liveFailedVersion: null,
  bulkOperationId: null,
};

/** How much a search word counts in each field: the name most. */
export const FIELD_WEIGHTS = { name: 3, tags: 1.5, queries: 1.5, description: 1, values: 1 } as const;

export function toStoredRule(row: RuleRow): StoredRule {
  return {
    rule: {
      id: row.id,
      studioId: row.studio_id,
      externalId: row.external_id,
      contentType: row.content_type as Rule['contentType'],
      migratedId: row.migrated_id,
      staging: JSON.parse(row.staging) as RuleContent,
      live: row.live === null ? null : (JSON.parse(row.live) as RuleContent),
      createdBy: row.created_by,
      creationDate: row.creation_date,
      lastModifiedBy: row.last_modified_by,
      lastModified: row.last_modified,
    },
    meta: {
      stagingVersion: row.staging_version,
      stagingSyncedVersion: row.staging_synced_version,
      stagingSyncedAt: row.staging_synced_at,
      stagingFailedVersion: row.staging_failed_version,
      liveVersion: row.live_version,
      liveSyncedVersion: row.live_synced_version,
      liveSyncedAt: row.live_synced_at,
      liveFailedVersion: row.live_failed_version,
      bulkOperationId: row.bulk_operation_id,
    },
  };
}

/** The rule row of a stored rule, every derived column computed from its contents. */
export function ruleRow({ rule, meta }: StoredRule): RuleRow {
  const { staging, live } = rule;
  return {
    id: rule.id,
    studio_id: rule.studioId,
    external_id: rule.externalId,
    content_type: rule.contentType,
    migrated_id: rule.migratedId,
    staging: JSON.stringify(staging),
    live: live === null ? null : JSON.stringify(live),
    created_by: rule.createdBy,
    creation_date: rule.creationDate,
    last_modified_by: rule.lastModifiedBy,
    last_modified: rule.lastModified,
    name_key: textKey(staging.name),
    type: staging.type,
    precedence: staging.precedence,
    sort_start: staging.conditions.effectiveStart ?? '',
    sort_end: staging.conditions.effectiveEnd ?? '~',
    publish_state: publishState(rule),
    published: live === null ? 0 : 1,
    staging_start: staging.conditions.effectiveStart,
    staging_end: staging.conditions.effectiveEnd,
    live_start: live?.conditions.effectiveStart ?? null,
    live_end: live?.conditions.effectiveEnd ?? null,
    staging_version: meta.stagingVersion,
    staging_synced_version: meta.stagingSyncedVersion,
    staging_synced_at: meta.stagingSyncedAt,
    staging_failed_version: meta.stagingFailedVersion,
    live_version: meta.liveVersion,
    live_synced_version: meta.liveSyncedVersion,
    live_synced_at: meta.liveSyncedAt,
    live_failed_version: meta.liveFailedVersion,
    bulk_operation_id: meta.bulkOperationId,
  };
}

/** The listing's filterable values of a rule, from both contents, each once. */
export function facetRows(rule: Rule): FacetRow[] {
  const rows = new Map<string, FacetRow>();
  const add = (kind: string, value: string, field = '') => {
    rows.set(JSON.stringify([kind, value, field]), {
      rule_id: rule.id,
      studio_id: rule.studioId,
      kind,
      value,
      field,
    });
  };
  for (const content of contentsOf(rule)) {
    add('type', content.type);
    for (const tag of content.tags) add('tag', tag);
    for (const group of content.groups) add('group', group);
    for (const { fieldName, value } of targetedDocuments(content)) add('target', value, fieldName);
    // Pins compete for positions: the candidates of a CONFLICTS check.
    if (content.type === 'pinned') {
      for (const { position } of content.pinnedValues) add('position', String(position));
    }
  }
  return [...rows.values()];
}

/** The search words of a rule per field, counted; a word's count is the larger of its two contents'. */
export function wordRows(rule: Rule): WordRow[] {
  const counts = new Map<string, { field: string; word: string; tf: number }>();
  for (const content of contentsOf(rule)) {
    const perContent = new Map<string, { field: string; word: string; tf: number }>();
    for (const [field, words] of Object.entries(searchableFields(content))) {
      for (const word of words) {
        const key = `${field}\u0000${word}`;
        const entry = perContent.get(key) ?? { field, word, tf: 0 };
        entry.tf += 1;
        perContent.set(key, entry);
      }
    }
    for (const [key, entry] of perContent) {
      const previous = counts.get(key);
      if (!previous || previous.tf < entry.tf) counts.set(key, entry);
    }
  }
  return [...counts.values()].map(({ field, word, tf }) => ({
    studio_id: rule.studioId,
    word,
    rule_id: rule.id,
    field,
    tf,
  }));
}

function contentsOf(rule: Rule): RuleContent[] {
  return rule.live === null ? [rule.staging] : [rule.staging, rule.live];
}
