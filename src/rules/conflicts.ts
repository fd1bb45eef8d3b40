// CONFLICTS: rules that can fire on the same query at the same time and act
// against each other on a document. Judged on staging contents: the listing
// shows staging, and the point is to warn an editor before publishing.
import { canonicalJson, type Rule, type RuleContent, type RuleType } from './rule.js';
import { textKey } from './text-search.js';

export interface RuleConflict {
  id: string;
  name: string;
  type: RuleType;
  reason: string;
}

export type ConflictCandidate = Pick<Rule, 'id' | 'staging'>;

type Verb = 'blocks' | 'boosts' | 'buries' | 'pins' | 'keeps only';
interface Document {
  fieldName: string;
  value: string;
}

/** What a content does and when, indexed for comparing it with many others. */
interface Profile {
  queryKeys: Set<string>;
  /** Fires on the empty query only (`queryMatch: empty`). */
  onEmpty: boolean;
  start: number;
  end: number;
  actions: Map<Verb, Map<string, Document>>;
  pinAt: Map<number, Document>;
  positionOf: Map<string, number>;
  redirect: string | null;
  /** A filter list's field and values. */
  filter: { fieldName: string; values: Set<string> } | null;
  /** The values a `setParams` rule replaces, defaults or removes, by key (appends add up). */
  params: Map<string, string>;
  responseValues: Map<string, string>;
  facets: string | null;
}

// Each pair acts against each other on a document; listed one way, checked both.
const OPPOSED: [Verb, Verb][] = [
  ['blocks', 'pins'],
  ['blocks', 'boosts'],
  ['boosts', 'buries'],
  ['blocks', 'keeps only'],
];

/**
 * The rules among `others` that conflict with `rule`, each once with every reason.
 * Rules marked for deletion are left out on both sides: the next publish removes them.
 */
export function findConflicts(rule: ConflictCandidate, others: Iterable<ConflictCandidate>): RuleConflict[] {
  const self = conflictProfile(rule);
  const conflicts: RuleConflict[] = [];
  for (const other of others) {
    const conflict = conflictBetween(self, conflictProfile(other));
    if (conflict) conflicts.push(conflict);
  }
  return conflicts;
}

/** A rule as compared for conflicts: computed once, compared with many. */
export interface ConflictProfile {
  id: string;
  name: string;
  type: RuleType;
  deleted: boolean;
  profile: Profile;
}

export function conflictProfile({ id, staging }: ConflictCandidate): ConflictProfile {
  return { id, name: staging.name, type: staging.type, deleted: staging.deleted, profile: profile(staging) };
}

/** How `other` conflicts with `self`, or undefined when it does not. */
export function conflictBetween(self: ConflictProfile, other: ConflictProfile): RuleConflict | undefined {
  if (other.id === self.id || self.deleted || other.deleted) return undefined;
  if (!canFireTogether(self.profile, other.profile)) return undefined;
  const reasons = clashes(self.profile, other.profile);
  if (reasons.length === 0) return undefined;
  return { id: other.id, name: other.name, type: other.type, reason: reasons.join('; ') };
}

function profile(content: RuleContent): Profile {
  const { queries, effectiveStart, effectiveEnd } = content.conditions;
  const result: Profile = {
    queryKeys: new Set(queries.map(textKey)),
    onEmpty: content.conditions.queryMatch === 'empty',
    start: effectiveStart === null ? Number.NEGATIVE_INFINITY : Date.parse(effectiveStart),
    end: effectiveEnd === null ? Number.POSITIVE_INFINITY : Date.parse(effectiveEnd),
    actions: new Map(),
    pinAt: new Map(),
    positionOf: new Map(),
    redirect: content.type === 'redirect' ? content.url : null,
    filter:
      content.type === 'filterList'
        ? { fieldName: content.fieldName, values: new Set(content.fieldValues) }
        : null,
    params: new Map(),
    responseValues: new Map(),
    facets: content.type === 'setFacetList' ? content.facetFields.join(', ') : null,
  };
  const act = (verb: Verb, fieldName: string, values: string[]) => {
    const documents = new Map(
      values.map((value) => [documentKey({ fieldName, value }), { fieldName, value }]),
    );
    result.actions.set(verb, documents);
  };
  if (content.type === 'blockList') act('blocks', content.fieldName, content.fieldValues);
  if (content.type === 'boostList') act('boosts', content.fieldName, content.fieldValues);
  if (content.type === 'buryList') act('buries', content.fieldName, content.fieldValues);
  if (content.type === 'filterList') act('keeps only', content.fieldName, content.fieldValues);
  if (content.type === 'boostAttributes') {
    const byValue = content.boosts.filter((b) => b.query === undefined);
    for (const [verb, sign] of [
      ['boosts', 1],
      ['buries', -1],
    ] as const) {
      const documents = new Map<string, Document>();
      for (const { fieldName, value, weight } of byValue) {
        if (Math.sign(weight) !== sign) continue;
        const document = { fieldName: fieldName!, value: value! };
        documents.set(documentKey(document), document);
      }
      if (documents.size > 0) result.actions.set(verb, documents);
    }
  }
  if (content.type === 'setParams') {
    for (const { key, value, policy } of content.params) {
      if (policy !== 'append')
        result.params.set(key, policy === 'remove' ? '(removed)' : `${policy} ${value}`);
    }
  }
  if (content.type === 'responseValue') {
    for (const { key, value } of content.responseValues) result.responseValues.set(key, canonicalJson(value));
  }
  if (content.type === 'pinned') {
    act(
      'pins',
      content.fieldName,
      content.pinnedValues.map(({ value }) => value),
    );
    for (const { value, position } of content.pinnedValues) {
      result.pinAt.set(position, { fieldName: content.fieldName, value });
      result.positionOf.set(documentKey({ fieldName: content.fieldName, value }), position);
    }
  }
  return result;
}

/**
 * Same query (by key, or either matches every query; a rule of the empty query meets only
 * those and its like) in overlapping effective ranges.
 */
function canFireTogether(a: Profile, b: Profile): boolean {
  const sameQuery =
    a.onEmpty || b.onEmpty
      ? a.queryKeys.size === 0 && b.queryKeys.size === 0
      : a.queryKeys.size === 0 ||
        b.queryKeys.size === 0 ||
        [...a.queryKeys].some((key) => b.queryKeys.has(key));
  return sameQuery && a.start <= b.end && b.start <= a.end;
}

function clashes(self: Profile, them: Profile): string[] {
  return [
    ...opposedActions(self, them),
    ...pinClashes(self, them),
    ...redirectClash(self, them),
    ...filterClash(self, them),
    ...keyedClashes('sets Solr parameter', self.params, them.params),
    ...keyedClashes('returns response value', self.responseValues, them.responseValues),
    ...facetClash(self, them),
  ];
}

// Two filter lists of one field that share no value leave no document.
function filterClash(self: Profile, them: Profile): string[] {
  const [mine, theirs] = [self.filter, them.filter];
  if (mine === null || theirs === null || mine.fieldName !== theirs.fieldName) return [];
  if ([...mine.values].some((value) => theirs.values.has(value))) return [];
  return [
    `keeps only ${theirs.fieldName} ${listed([...theirs.values])}, where this rule keeps only ` +
      `${listed([...mine.values])}: together they leave no document`,
  ];
}

// The same key set to different things: only the rule first in precedence order gets its way.
function keyedClashes(what: string, mine: Map<string, string>, theirs: Map<string, string>): string[] {
  const reasons: string[] = [];
  for (const [key, value] of theirs) {
    const own = mine.get(key);
    if (own !== undefined && own !== value)
      reasons.push(`${what} ${key} (${value}), where this rule sets ${own}`);
  }
  return reasons;
}

function facetClash(self: Profile, them: Profile): string[] {
  if (self.facets === null || them.facets === null || self.facets === them.facets) return [];
  return [`orders the facets ${them.facets}, where this rule orders them ${self.facets}`];
}

function opposedActions(self: Profile, them: Profile): string[] {
  const reasons: string[] = [];
  for (const [a, b] of OPPOSED) {
    for (const [mine, theirs] of [
      [a, b],
      [b, a],
    ] as const) {
      const shared = intersection(self.actions.get(mine), them.actions.get(theirs));
      for (const [fieldName, values] of byField(shared)) {
        reasons.push(`${theirs} ${fieldName} ${listed(values)}, which this rule ${mine}`);
      }
    }
  }
  return reasons;
}

function pinClashes(self: Profile, them: Profile): string[] {
  const reasons: string[] = [];
  for (const [position, theirs] of them.pinAt) {
    const mine = self.pinAt.get(position);
    if (mine === undefined || documentKey(mine) === documentKey(theirs)) continue;
    reasons.push(
      `pins ${theirs.fieldName} ${quoted(theirs.value)} at position ${position}, ` +
        `where this rule pins ${mine.fieldName} ${quoted(mine.value)}`,
    );
  }
  // Not named by the spec, but one document pinned at two positions is as contradictory.
  for (const [key, position] of them.positionOf) {
    const mine = self.positionOf.get(key);
    if (mine === undefined || mine === position) continue;
    const { fieldName, value } = them.pinAt.get(position)!;
    reasons.push(
      `pins ${fieldName} ${quoted(value)} at position ${position}, where this rule pins it at ${mine}`,
    );
  }
  return reasons;
}

function redirectClash(self: Profile, them: Profile): string[] {
  if (self.redirect === null || them.redirect === null) return [];
  if (self.redirect === them.redirect) return [`also redirects to ${self.redirect}`];
  return [`redirects to ${them.redirect}, where this rule redirects to ${self.redirect}`];
}

function documentKey({ fieldName, value }: Document): string {
  return JSON.stringify([fieldName, value]);
}

function intersection(
  a: Map<string, Document> | undefined,
  b: Map<string, Document> | undefined,
): Document[] {
  if (a === undefined || b === undefined) return [];
  return [...a].filter(([key]) => b.has(key)).map(([, document]) => document);
}

function byField(documents: Document[]): Map<string, string[]> {
  const fields = new Map<string, string[]>();
  for (const { fieldName, value } of documents) {
    const values = fields.get(fieldName) ?? [];
    values.push(value);
    fields.set(fieldName, values);
  }
  return fields;
}

// A reason stays readable when a rule shares thousands of values with another.
function listed(values: string[]): string {
  const shown = values.slice(0, 3).map(quoted).join(', ');
  return values.length > 3 ? `${shown} and ${values.length - 3} more` : shown;
}

function quoted(value: string): string {
  return JSON.stringify(value);
}
