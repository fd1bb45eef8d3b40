// CONFLICTS: rules that can fire on the same query at the same time and act
// against each other on a document. Judged on staging contents: the listing
// shows staging, and the point is to warn an editor before publishing.
import type { Rule, RuleContent, RuleType } from './rule.js';
import { textKey } from './text-search.js';

export interface RuleConflict {
  id: string;
  name: string;
  type: RuleType;
  reason: string;
}

export type ConflictCandidate = Pick<Rule, 'id' | 'staging'>;

type Verb = 'blocks' | 'boosts' | 'buries' | 'pins';
interface Document {
  fieldName: string;
  value: string;
}

/** What a content does and when, indexed for comparing it with many others. */
interface Profile {
  queryKeys: Set<string>;
  start: number;
  end: number;
  actions: Map<Verb, Map<string, Document>>;
  pinAt: Map<number, Document>;
  positionOf: Map<string, number>;
  redirect: string | null;
}

// Each pair acts against each other on a document; listed one way, checked both.
const OPPOSED: [Verb, Verb][] = [
  ['blocks', 'pins'],
  ['blocks', 'boosts'],
  ['boosts', 'buries'],
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
    start: effectiveStart === null ? Number.NEGATIVE_INFINITY : Date.parse(effectiveStart),
    end: effectiveEnd === null ? Number.POSITIVE_INFINITY : Date.parse(effectiveEnd),
    actions: new Map(),
    pinAt: new Map(),
    positionOf: new Map(),
    redirect: content.type === 'redirect' ? content.url : null,
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

/** Same query (by key, or either matches every query) in overlapping effective ranges. */
function canFireTogether(a: Profile, b: Profile): boolean {
  const sameQuery =
    a.queryKeys.size === 0 || b.queryKeys.size === 0 || [...a.queryKeys].some((key) => b.queryKeys.has(key));
  return sameQuery && a.start <= b.end && b.start <= a.end;
}

function clashes(self: Profile, them: Profile): string[] {
  return [...opposedActions(self, them), ...pinClashes(self, them), ...redirectClash(self, them)];
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
