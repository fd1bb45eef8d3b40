// The contents that rule evaluation reads: a studio's live rules (for its compiled index)
// or its staging rules (for previews), each with what ranks it. Their SQL is in
// evaluation-repository.ts.
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import {
  type LivePagePosition,
  type LiveRuleRow,
  selectLiveRulesByIds,
  selectLiveRulesPage,
  selectLiveStampsPage,
  selectStagingRules,
} from './evaluation-repository.js';
import type { RuleContent } from './rule.js';

export interface RuleForEvaluation {
  id: string;
  creationDate: string;
  content: RuleContent;
}

/** A live rule with its stamp: what changes whenever the rule is written. */
export interface StampedRule extends RuleForEvaluation {
  stamp: string;
}

// Rows per read: on SQLite each read holds the event loop, so a large studio is read in pages
// (in the order of an index, so no page sorts the studio) with a pass to the loop between them.
const PAGE = 500;

/** The studio's rules that have live content, with it; a rule marked for deletion is left out. */
export async function liveRulesOf(
  db: Kysely<Database>,
  studioId: string,
  pass: () => Promise<void> = async () => {},
): Promise<StampedRule[]> {
  const rules: StampedRule[] = [];
  let after: LivePagePosition | undefined;
  for (;;) {
    const rows = await selectLiveRulesPage(db, studioId, after, PAGE);
    for (const row of rows) rules.push(stampedRule(row));
    if (rows.length < PAGE) return rules;
    const last = rows[rows.length - 1]!;
    after = { creationDate: last.creation_date, id: last.id };
    await pass();
  }
}

/** The stamp of each live rule of the studio (as `liveRulesOf`, without reading the contents). */
export async function liveRuleStamps(
  db: Kysely<Database>,
  studioId: string,
  pass: () => Promise<void> = async () => {},
): Promise<Map<string, string>> {
  const stamps = new Map<string, string>();
  let after: LivePagePosition | undefined;
  for (;;) {
    const rows = await selectLiveStampsPage(db, studioId, after, PAGE * 4);
    for (const row of rows) stamps.set(row.id, stampOf(row));
    if (rows.length < PAGE * 4) return stamps;
    const last = rows[rows.length - 1]!;
    after = { creationDate: last.creation_date, id: last.id };
    await pass();
  }
}

/**
 * Those of the given rules of the studio that have live content and no deletion mark, with
 * it; an id not answered is gone, unpublished or marked.
 */
export async function liveRulesByIds(
  db: Kysely<Database>,
  studioId: string,
  ids: readonly string[],
): Promise<StampedRule[]> {
  const rules: StampedRule[] = [];
  for (let start = 0; start < ids.length; start += PAGE) {
    const rows = await selectLiveRulesByIds(db, studioId, ids.slice(start, start + PAGE));
    for (const row of rows) rules.push(stampedRule(row));
  }
  return rules;
}

function stampedRule(row: LiveRuleRow): StampedRule {
  return {
    id: row.id,
    creationDate: row.creation_date,
    content: JSON.parse(row.live!) as RuleContent,
    stamp: stampOf(row),
  };
}

// Every write of a rule moves lastModified forward, and every change of its live content
// moves its live version: together they tell any change, also a rule deleted and imported
// again under its id.
function stampOf(row: { live_version: number; last_modified: string }): string {
  return `${Number(row.live_version)}/${row.last_modified}`;
}

/**
 * The studio's staging contents, as the next publish of every rule would make them live:
 * contents marked for deletion are left out, drafts are in.
 */
export async function stagingRulesOf(db: Kysely<Database>, studioId: string): Promise<RuleForEvaluation[]> {
  const rows = await selectStagingRules(db, studioId);
  return rows
    .map((row) => ({
      id: row.id,
      creationDate: row.creation_date,
      content: JSON.parse(row.staging) as RuleContent,
    }))
    .filter((rule) => !rule.content.deleted);
}
