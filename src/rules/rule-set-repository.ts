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

// Search words of a typical rule: what checking one rule against the query words costs.
const WORDS_PER_RULE = 30;

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
 * The rules having, for every query word, a word that begins with it. The query words
 * are rows of a small table joined to the word index (one range each) in a fixed number
 * of statements, so the work grows with the words linearly, where one condition or
 * subquery per word made the planners' work grow faster (seconds at 100 words).
 */
function searchSet(db: Kysely<Database>, studioId: string, words: readonly string[]): RuleSet {
  const q = queryWords(words);
  const matches = sql`rule_word w join ${q} q on w.word >= q.lo and w.word < q.hi`;
  const everyWord = sql`count(distinct q.pos) = ${sql.lit(words.length)}`;
  // How `table` reads the set, chosen by `size` from the words' counts: every word's
  // range at once, or the rarest word's rules each checked against the other words.
  let plan: { rarest: string } | 'ranges' = 'ranges';
  const has = (ruleId: Expression<string>) =>
    // The rule's own words (one index range) against the query's: no word range is scanned per rule.
    sql<SqlBool>`${sql.lit(words.length)} = (select count(distinct q.pos) from ${matches}
      where w.rule_id = ${ruleId})`;
  return {
    table: () => {
      if (plan === 'ranges') {
        return sql<{ rule_id: string }>`(select w.rule_id from ${matches} where w.studio_id = ${studioId}
          group by w.rule_id having ${everyWord})`.as('c');
      }
      const { rarest } = plan;
      return sql<{ rule_id: string }>`(select c.rule_id from (
          select distinct rule_id from rule_word
          where studio_id = ${studioId} and word >= ${rarest} and word < ${upperBound(rarest)}
        ) c where ${has(sql.ref('c.rule_id'))})`.as('c');
    },
    has,
    size: async () => {
      const counts = await sql<{ pos: number; n: number }>`select q.pos, count(w.rule_id) as n
        from ${q} q left join rule_word w
        on w.studio_id = ${studioId} and w.word >= q.lo and w.word < q.hi
        group by q.pos`.execute(db);
      const sizes = counts.rows.map((row) => ({ pos: Number(row.pos), n: Number(row.n) }));
      const least = sizes.reduce((a, b) => (b.n < a.n ? b : a));
      const ranges = sizes.reduce((sum, { n }) => sum + n, 0);
      const perRule = words.length * WORDS_PER_RULE;
      plan = least.n * perRule < ranges ? { rarest: words[least.pos]! } : 'ranges';
      return least.n;
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
