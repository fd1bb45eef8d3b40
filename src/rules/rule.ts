// What a rule is: its types, its content, the facts derived from them, and how two
// contents compare. The content's fields, limits and defaults per type are in
// rule-content.ts; how a client's body becomes a content, in rule-validation.ts.

import type { FieldError } from '../http/schemas.js';
import type {
  BannerContent,
  BlockListContent,
  BoostAttributesContent,
  BoostListContent,
  BuryListContent,
  CONTENT_TYPES,
  FilterListContent,
  PinnedContent,
  RedirectContent,
  ResponseValueContent,
  RULE_TYPES,
  SetFacetListContent,
  SetParamsContent,
} from './rule-content.js';

export type RuleType = (typeof RULE_TYPES)[number];
export type ContentType = (typeof CONTENT_TYPES)[number];

/** What staging and live hold: everything an editor changes, with defaults applied. */
export type RuleContent =
  | BlockListContent
  | BoostListContent
  | BuryListContent
  | PinnedContent
  | RedirectContent
  | BannerContent
  | FilterListContent
  | BoostAttributesContent
  | SetParamsContent
  | ResponseValueContent
  | SetFacetListContent;

/** A stored rule. Dates are ISO 8601 strings in UTC, as answered. */
export interface Rule {
  id: string;
  studioId: string;
  externalId: string | null;
  contentType: ContentType;
  migratedId: string | null;
  staging: RuleContent;
  live: RuleContent | null;
  createdBy: string;
  creationDate: string;
  lastModifiedBy: string;
  lastModified: string;
}

/** The fields fixed at creation, which an update must not change. */
export type RuleIdentity = Pick<Rule, 'externalId' | 'contentType'> & { type: RuleType };

export type PublishState = 'DRAFT' | 'PUBLISHED' | 'PUBLISHED_WITH_DRAFT_EDITS';

export type { FieldError };

export type Validation<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

export interface TargetedDocument {
  fieldName: string;
  value: string;
}

/** Where a rule stands between its staging and live contents. */
export function publishState(rule: Pick<Rule, 'staging' | 'live'>): PublishState {
  if (rule.live === null) return 'DRAFT';
  return sameContent(rule.staging, rule.live) ? 'PUBLISHED' : 'PUBLISHED_WITH_DRAFT_EDITS';
}

/** Whether the next publish removes the rule. Derived, so it can never disagree with staging. */
export function isMarkedForDeletion(rule: Pick<Rule, 'staging' | 'live'>): boolean {
  return rule.live !== null && rule.staging.deleted;
}

/**
 * The documents a content acts on by value: blocked, boosted, buried, pinned or filtered ones
 * (a filter list keeps the documents of its values, a boost by attribute moves those of its
 * field values; a boost by a query names no one value).
 */
export function targetedDocuments(content: RuleContent): TargetedDocument[] {
  switch (content.type) {
    case 'blockList':
    case 'boostList':
    case 'buryList':
    case 'filterList':
      return distinct(content.fieldValues.map((value) => ({ fieldName: content.fieldName, value })));
    case 'pinned':
      return distinct(content.pinnedValues.map(({ value }) => ({ fieldName: content.fieldName, value })));
    case 'boostAttributes':
      return distinct(
        content.boosts.flatMap(({ fieldName, value }) =>
          fieldName === undefined || value === undefined ? [] : [{ fieldName, value }],
        ),
      );
    case 'redirect':
    case 'banner':
    case 'setParams':
    case 'responseValue':
    case 'setFacetList':
      return [];
  }
}

/** The documents targeted by staging or live, each once (the listing's TARGETED_DOCUMENTS). */
export function ruleTargetedDocuments(rule: Pick<Rule, 'staging' | 'live'>): TargetedDocument[] {
  const live = rule.live === null ? [] : targetedDocuments(rule.live);
  return distinct([...targetedDocuments(rule.staging), ...live]);
}

function distinct(documents: TargetedDocument[]): TargetedDocument[] {
  const seen = new Set<string>();
  return documents.filter(({ fieldName, value }) => {
    const key = JSON.stringify([fieldName, value]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

// Contents are compared by meaning, not by the order in which a client (or a
// JSON column) happened to write their keys.

/** JSON with object keys sorted at every depth; undefined members are left out, as JSON does. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, member: unknown) => {
    if (member === null || typeof member !== 'object' || Array.isArray(member)) return member;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(member).sort()) sorted[key] = (member as Record<string, unknown>)[key];
    return sorted;
  });
}

/**
 * Whether two contents say the same thing. Arrays keep their order: a reordered
 * list of pins or values is an edit the editor made and should publish.
 */
export function sameContent(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
