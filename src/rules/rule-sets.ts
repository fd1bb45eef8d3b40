// The listing's filters on side tables, as sets of rules: a facet filter (tags,
// groups, types, targeted document) or a search. Each can drive a query (its
// rules read whole), check one rule (`has`), or tell how much reading it costs.
import {
  type AliasedExpression,
  type Expression,
  type Kysely,
  type RawBuilder,
  type SqlBool,
  sql,
} from 'kysely';
import type { Database } from '../storage/schema.js';
import type { ListingFilter } from './listing-params.js';

/** Rules a facet or a search selects, from a side table. */
export interface RuleSet {
  /** The set's rules, each once, as the derived table `c`. */
  table(): AliasedExpression<{ rule_id: string }, 'c'>;
  /** Whether one rule is in the set: a few index seeks. */
  has(ruleId: Expression<string>): Expression<SqlBool>;
  /** Side rows read to list the set: at least its rules, a cheap count of index ranges. */
  size(): Promise<number>;
}

/** The facet and search filters as sets of rules from the side tables (both contents). */
export function ruleSets(db: Kysely<Database>, studioId: string, filter: ListingFilter): RuleSet[] {
  const sets: RuleSet[] = [];
  const facet = (kind: string, values: string[], field = '') => facetSet(db, studioId, kind, values, field);
  if (filter.tags) sets.push(facet('tag', filter.tags));
  if (filter.groups) sets.push(facet('group', filter.groups));
  if (filter.types) sets.push(facet('type', filter.types));
  if (filter.targeted) sets.push(facet('target', [filter.targeted.value], filter.targeted.fieldName));
  if (filter.searchWords?.length) sets.push(searchSet(db, studioId, filter.searchWords));
  return sets;
}

function facetSet(db: Kysely<Database>, studioId: string, kind: string, values: string[], field: string) {
  const ids = () =>
    db
      .selectFrom('rule_facet')
      .select('rule_id')
      .where('studio_id', '=', studioId)
      .where('kind', '=', kind)
      .where('value', 'in', values)
      .where('field', '=', field);
  return {
    // One facet value has one row per rule; several may repeat a rule.
    table: () => (values.length === 1 ? ids() : ids().distinct()).as('c'),
    has: (ruleId) => sql<SqlBool>`exists ${ids().where('rule_id', '=', ruleId)}`,
    size: async () =>
      Number(
        (
          await ids()
            .clearSelect()
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      ),
  } satisfies RuleSet;
}

/**
 * The rules having, for every query word, a word that begins with it. One statement
 * whatever the number of words: the words are rows of a small table joined to the
 * word index (one range each), so the work grows with the words linearly, where one
 * condition or subquery per word made the planners' work grow faster.
 */
function searchSet(db: Kysely<Database>, studioId: string, words: readonly string[]): RuleSet {
  const q = queryWords(words);
  const matches = sql`rule_word w join ${q} q on w.word >= q.lo and w.word < q.hi`;
  return {
    table: () =>
      sql<{ rule_id: string }>`(select w.rule_id from ${matches}
        where w.studio_id = ${studioId}
        group by w.rule_id having count(distinct q.pos) = ${sql.lit(words.length)})`.as('c'),
    has: (ruleId) =>
      sql<SqlBool>`${sql.lit(words.length)} = (select count(*) from ${q} q where exists (
        select 1 from rule_word w where w.rule_id = ${ruleId} and w.studio_id = ${studioId}
        and w.word >= q.lo and w.word < q.hi))`,
    size: async () => {
      const counted = await sql<{ n: number }>`select count(*) as n from ${matches}
        where w.studio_id = ${studioId}`.execute(db);
      return Number(counted.rows[0]?.n ?? 0);
    },
  };
}

/**
 * The query words as a derived table `(pos, lo, hi)`: words beginning with a query word
 * lie in [lo, hi), one index range, as text compares by bytes on both engines.
 */
export function queryWords(words: readonly string[]): RawBuilder<unknown> {
  const rows = words.map(
    (word, pos) =>
      sql`select ${sql.lit(pos)} as pos, cast(${word} as text) as lo, cast(${upperBound(word)} as text) as hi`,
  );
  return sql`(${sql.join(rows, sql` union all `)})`;
}

/** The first text after every text beginning with `prefix`. */
function upperBound(prefix: string): string {
  const last = prefix.codePointAt(prefix.length - 1)!;
  const lastLength = last > 0xffff ? 2 : 1;
  return prefix.slice(0, -lastLength) + String.fromCodePoint(last + 1);
}
