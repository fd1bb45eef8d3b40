// The listing's filters on side tables, as sets of rules: a facet filter (tags,
// groups, types, targeted document) or a search. Each can drive a query (its
// rules read whole), check one rule (`has`), or tell how much reading it costs.
import { type Kysely, type SqlBool, sql } from 'kysely';
import { type IdSet, wordSearchSet } from '../listing/word-search-repository.js';
import type { Database } from '../storage/schema.js';
import type { ListingFilter } from './listing-params.js';
import { indexAnswers } from './text-index.js';
import { textMatches } from './text-index-repository.js';

// The rules' word index, as the shared search reads it.
const RULE_WORDS = { table: 'rule_word', id: 'rule_id' } as const;

export { queryWords } from '../listing/word-search-repository.js';

/** Rules a facet or a search selects, from a side table. */
export type RuleSet = IdSet<'rule_id'>;

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

/**
 * The rules having every query word as the beginning of one of their words: from the
 * full-text index, or from the word table for a word longer than the index keeps.
 */
function searchSet(db: Kysely<Database>, studioId: string, words: string[]): RuleSet {
  if (!indexAnswers(words)) return wordSearchSet(db, studioId, words, RULE_WORDS);
  const matches = () => textMatches(db, studioId, words, false);
  return {
    exact: true,
    table: () => sql<{ rule_id: string }>`(select m.rule_id from ${matches()} m)`.as('c'),
    has: (ruleId) => sql<SqlBool>`${ruleId} in (select m.rule_id from ${matches()} m)`,
    size: async () => {
      const count = await sql<{ n: number }>`select count(*) as n from ${matches()} m`.execute(db);
      return Number(count.rows[0]!.n);
    },
  };
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
    // `offset 0` is a no-op that PostgreSQL never flattens into a join (PostgreSQL only).
    probe: (ruleId) => sql<SqlBool>`exists ${ids().where('rule_id', '=', ruleId).offset(0)}`,
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
