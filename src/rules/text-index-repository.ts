// SQL of the rules' full-text index (see text-index.ts for its tokens): writing and removing
// a rule's entries, and the rules of a studio matching query words. SQLite keeps an FTS5 table
// `rule_text` keyed through `rule_search.doc`; PostgreSQL a tsvector `rule_search.doc`.
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { onPostgres } from '../storage/dialect.js';
import type { Database } from '../storage/schema.js';
import type { Rule } from './rule.js';
import {
  BM25_WEIGHTS,
  ftsColumn,
  ftsQuery,
  ruleTokens,
  TEXT_FIELDS,
  TS_WEIGHTS,
  tsQueryText,
  tsvectorText,
} from './text-index.js';

/** Writes the index entries of rules (new ones, or ones whose old entries were removed). */
export async function insertTextEntries(db: Kysely<Database>, rules: readonly Rule[]): Promise<void> {
  if (rules.length === 0) return;
  if (onPostgres(db)) {
    for (let i = 0; i < rules.length; i += ROWS_PER_INSERT) {
      const rows = rules
        .slice(i, i + ROWS_PER_INSERT)
        .map(
          (rule) => sql`(${rule.id}, ${rule.studioId}, cast(${tsvectorText(ruleTokens(rule))} as tsvector))`,
        );
      await sql`insert into rule_search (rule_id, studio_id, doc) values ${sql.join(rows)}
        on conflict (rule_id) do update set doc = excluded.doc`.execute(db);
    }
    return;
  }
  for (let i = 0; i < rules.length; i += ROWS_PER_INSERT) {
    const part = rules.slice(i, i + ROWS_PER_INSERT);
    const docs = await db
      .insertInto('rule_search')
      .values(part.map((rule) => ({ rule_id: rule.id, studio_id: rule.studioId })))
      .returning(['doc', 'rule_id'])
      .execute();
    const docOf = new Map(docs.map((row) => [row.rule_id, row.doc]));
    const rows = part.map((rule) => {
      const tokens = ruleTokens(rule);
      return sql`(${docOf.get(rule.id)!}, ${sql.join(TEXT_FIELDS.map((field) => tokens[field].join(' ')))})`;
    });
    await sql`insert into rule_text (rowid, ${sql.raw(TEXT_FIELDS.map(ftsColumn).join(', '))})
      values ${sql.join(rows)}`.execute(db);
  }
}

// Rows per statement: five text columns each, far below both engines' parameter limits.
const ROWS_PER_INSERT = 200;

/** Removes a rule's index entries (SQLite's FTS row goes with its `rule_search` row, by trigger). */
export async function deleteTextEntries(db: Kysely<Database>, ruleId: string): Promise<void> {
  await db.deleteFrom('rule_search').where('rule_id', '=', ruleId).execute();
}

function tsQuery(studioId: string, words: readonly string[]): RawBuilder<unknown> {
  return sql`cast(${tsQueryText(studioId, words)} as tsquery)`;
}

/**
 * The rules of a studio matching every word, as a derived table of `rule_id` with the
 * relevance `score` (higher is better) when `ranked`.
 */
export function textMatches(
  db: Kysely<Database>,
  studioId: string,
  words: readonly string[],
  ranked: boolean,
): RawBuilder<{ rule_id: string; score: number }> {
  if (onPostgres(db)) {
    const query = tsQuery(studioId, words);
    const score = ranked ? sql`ts_rank(cast(${TS_WEIGHTS} as real[]), s.doc, ${query})` : sql`0`;
    // OFFSET 0 keeps the planner from checking the match rule by rule along a sort index,
    // which reads every rule's tsvector: the GIN index finds the matches at once.
    return sql`(select s.rule_id, ${score} as score from rule_search s
      where s.doc @@ ${query} ${ranked ? sql`` : sql`offset 0`})`;
  }
  const weights = TEXT_FIELDS.map((field) => sql.lit(BM25_WEIGHTS[field]));
  // bm25() is lower for better matches: negated, so higher is better on both engines.
  const score = ranked ? sql`-bm25(rule_text, ${sql.join(weights)})` : sql`0`;
  return sql`(select s.rule_id, ${score} as score from rule_text t
    join rule_search s on s.doc = t.rowid
    where rule_text match ${ftsQuery(studioId, words)})`;
}
