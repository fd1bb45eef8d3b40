// CONFLICTS for a page of rules at once, with bounded work: candidates are looked up
// for all the page's targeted documents and pin positions together (a few statements
// per page, none per rule), each rule compares itself with a bounded number of them,
// reports a bounded number of conflicts, and the work yields to the event loop.
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { TimeSlice } from '../storage/time-slice.js';
import { type ConflictProfile, conflictBetween, conflictProfile, type RuleConflict } from './conflicts.js';
import { type FacetKey, selectFacetPostings, selectStagingContents } from './repository.js';
import { type Rule, targetedDocuments } from './rule.js';

/** Conflicts reported per rule; `conflictsTruncated` says when there may be more. */
export const MAX_CONFLICTS_PER_RULE = 20;
/** Candidates one rule is compared with, at most (fewer on large pages, see below). */
export const MAX_CANDIDATES_PER_RULE = 200;
// Comparisons of a whole page, at most: a page of 1,000 rules compares each with 20.
const CANDIDATES_PER_PAGE = 20_000;
// Keys per statement (each a UNION ALL branch) and contents read per statement.
const KEYS_PER_STATEMENT = 50;
const CONTENTS_PER_STATEMENT = 100;

export interface RuleConflicts {
  conflicts: RuleConflict[];
  /** True when the rule may have conflicts beyond those listed (a cap was reached). */
  truncated: boolean;
}

/** The conflicts of each rule of a page (all of one studio), by rule id. */
export async function conflictsOfPage(
  db: Kysely<Database>,
  studioId: string,
  rules: readonly Rule[],
): Promise<Map<string, RuleConflicts>> {
  const result = new Map<string, RuleConflicts>();
  if (rules.length === 0) return result;
  const perRule = Math.min(MAX_CANDIDATES_PER_RULE, Math.ceil(CANDIDATES_PER_PAGE / rules.length));
  const slice = new TimeSlice();

  const keysOf = new Map<string, FacetKey[]>();
  for (const rule of rules) {
    keysOf.set(rule.id, rule.staging.deleted ? [] : candidateKeys(rule));
    await slice.pass();
  }
  const postings = await postingsOf(db, studioId, [...keysOf.values()].flat(), perRule, slice);

  const candidatesOf = new Map<string, string[]>();
  for (const rule of rules) {
    const union = new Set<string>();
    for (const key of keysOf.get(rule.id)!) for (const id of postings.get(keyId(key)) ?? []) union.add(id);
    union.delete(rule.id);
    const candidates = [...union].sort();
    result.set(rule.id, { conflicts: [], truncated: candidates.length > perRule });
    candidatesOf.set(rule.id, candidates.slice(0, perRule));
    await slice.pass();
  }

  const profiles = new Map<string, ConflictProfile>();
  for (const rule of rules) {
    profiles.set(rule.id, conflictProfile(rule));
    await slice.pass();
  }
  const missing = [...new Set([...candidatesOf.values()].flat())].filter((id) => !profiles.has(id));
  for (let i = 0; i < missing.length; i += CONTENTS_PER_STATEMENT) {
    for (const { id, staging } of await selectStagingContents(
      db,
      missing.slice(i, i + CONTENTS_PER_STATEMENT),
    )) {
      profiles.set(id, conflictProfile({ id, staging: JSON.parse(staging) }));
      await slice.pass();
    }
  }

  for (const rule of rules) {
    const self = profiles.get(rule.id)!;
    const found = result.get(rule.id)!;
    for (const id of candidatesOf.get(rule.id)!) {
      const other = profiles.get(id);
      // A candidate removed since its posting was read has nothing to conflict with.
      const conflict = other && conflictBetween(self, other);
      await slice.pass();
      if (!conflict) continue;
      if (found.conflicts.length === MAX_CONFLICTS_PER_RULE) {
        found.truncated = true;
        break;
      }
      found.conflicts.push(conflict);
    }
  }
  return result;
}

const KINDS_MET_BY_TYPE = new Set<string>([
  'redirect',
  'filterList',
  'setParams',
  'responseValue',
  'setFacetList',
]);

/**
 * What a rule's staging can clash on: the documents it acts on, the positions it pins,
 * and for a redirect the other redirects. Other rules sharing one are the candidates.
 */
function candidateKeys(rule: Rule): FacetKey[] {
  const { staging } = rule;
  const keys: FacetKey[] = targetedDocuments(staging).map(({ fieldName, value }) => ({
    kind: 'target',
    value,
    field: fieldName,
  }));
  if (staging.type === 'pinned') {
    for (const { position } of staging.pinnedValues) {
      keys.push({ kind: 'position', value: String(position), field: '' });
    }
  }
  // Kinds that clash on something other than a document (a URL, a Solr parameter, a response
  // value's key, the facets, a filter's values) meet every rule of their kind.
  if (KINDS_MET_BY_TYPE.has(staging.type)) keys.push({ kind: 'type', value: staging.type, field: '' });
  return keys;
}

/**
 * The rules of each key, at most `perRule + 2` of them: with the rule itself left out,
 * that is enough to fill its candidates and to know whether there were more.
 */
async function postingsOf(
  db: Kysely<Database>,
  studioId: string,
  keys: FacetKey[],
  perRule: number,
  slice: TimeSlice,
): Promise<Map<string, string[]>> {
  const distinct = [...new Map(keys.map((key) => [keyId(key), key])).values()];
  const postings = new Map<string, string[]>();
  for (let i = 0; i < distinct.length; i += KEYS_PER_STATEMENT) {
    const rows = await selectFacetPostings(
      db,
      studioId,
      distinct.slice(i, i + KEYS_PER_STATEMENT),
      perRule + 2,
    );
    for (const row of rows) {
      const id = keyId(row);
      const ids = postings.get(id);
      if (ids) ids.push(row.rule_id);
      else postings.set(id, [row.rule_id]);
    }
    await slice.pass();
  }
  return postings;
}

function keyId({ kind, value, field }: FacetKey): string {
  return JSON.stringify([kind, value, field]);
}
