// The rules listing as SQL: filters, sorts and pages answered by the database
// through the rule table's sort indexes and the side tables of both contents.
// The same statements run on SQLite and PostgreSQL (byte-ordered text on both).
import {
  type Expression,
  type ExpressionBuilder,
  expressionBuilder,
  type Kysely,
  type RawBuilder,
  type SelectQueryBuilder,
  type SqlBool,
  sql,
} from 'kysely';
import type { Database } from '../storage/schema.js';
import type { ListingFilter, ListingParams, Range, SortProperty } from './listing-params.js';
import { FIELD_WEIGHTS, type RuleRow } from './rule-rows.js';
import type { RuleTable } from './tables.js';

type RuleEb = ExpressionBuilder<Database & { r: RuleTable }, 'r'>;

const SORT_COLUMNS = {
  name: 'r.name_key',
  type: 'r.type',
  precedence: 'r.precedence',
  creationDate: 'r.creation_date',
  lastModified: 'r.last_modified',
  createdBy: 'r.created_by',
  lastModifiedBy: 'r.last_modified_by',
  publishState: 'r.publish_state',
  effectiveStart: 'r.sort_start',
  effectiveEnd: 'r.sort_end',
} as const satisfies Record<SortProperty, string>;

// BM25's term-frequency saturation.
const K1 = 1.2;

// A candidate set at most this large is read whole and sorted; a larger one is
// checked row by row while walking the sort's index (about size × rules / set rows).
const DRIVE_LIMIT = 2_000;

/**
 * Rules a facet or a search word selects, as ids from a side table (a rule may
 * repeat): `ids` lists them, `has` checks one rule with a single index seek.
 */
interface RuleSet {
  ids(): SelectQueryBuilder<Database, 'rule_facet' | 'rule_word', { rule_id: string }>;
  /** Whether `ids` never repeats a rule (one facet value: its rows are unique per rule). */
  unique: boolean;
  has(ruleId: Expression<string>): Expression<SqlBool>;
  /** Side rows of the set: at least its rules, a cheap count of one index range. */
  size(): Promise<number>;
}

/** One page of a studio's rules and the number of rules matching in all. */
export async function queryListing(
  db: Kysely<Database>,
  studioId: string,
  params: ListingParams,
): Promise<{ rows: RuleRow[]; total: number }> {
  const { filter, sort, page, size } = params;
  const conditions = ruleConditions(studioId, filter);
  if (sort === 'relevance') return queryByRelevance(db, studioId, params, conditions);

  // The smallest set drives when it is small; the others (and the rest) are checked per rule.
  const sets = await bySize(ruleSets(db, studioId, filter));
  const [driver, ...others] = sets;
  const ordered = <QB extends SelectQueryBuilder<Database & { r: RuleTable }, 'r', RuleRow>>(query: QB) => {
    let sorted = query;
    for (const key of sort) {
      sorted = sorted.orderBy(SORT_COLUMNS[key.property], key.descending ? 'desc' : 'asc') as QB;
    }
    return sorted
      .orderBy('r.id', 'asc')
      .limit(size)
      .offset(page * size);
  };
  let rows: Promise<RuleRow[]>;
  if (driver && driver.rows <= DRIVE_LIMIT) {
    rows = ordered(
      db
        .selectFrom(distinctIds(driver.set).as('c'))
        .innerJoin('rule as r', 'r.id', 'c.rule_id')
        .selectAll('r')
        .where((eb) =>
          eb.and([...conditions.map((c) => c(eb)), ...others.map((o) => o.set.has(eb.ref('r.id')))]),
        ),
    ).execute();
  } else {
    rows = ordered(
      db
        .selectFrom('rule as r')
        .selectAll('r')
        .where((eb) =>
          eb.and([...conditions.map((c) => c(eb)), ...sets.map((o) => o.set.has(eb.ref('r.id')))]),
        ),
    ).execute();
  }
  const [found, total] = await Promise.all([rows, countMatching(db, conditions, sets)]);
  return { rows: found, total };
}

/**
 * The number of matching rules, read from the smallest side table range when
 * there is one (the rule rows are only visited for conditions on their columns).
 */
async function countMatching(
  db: Kysely<Database>,
  conditions: RuleCondition[],
  sets: Array<{ set: RuleSet; rows: number }>,
): Promise<number> {
  const [driver, ...others] = sets;
  if (!driver) {
    const count = await db
      .selectFrom('rule as r')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where((eb) => eb.and(conditions.map((c) => c(eb))))
      .executeTakeFirstOrThrow();
    return Number(count.total);
  }
  const onRule = conditions.slice(1); // the first is the studio, which the side rows carry
  const count = await db
    .selectFrom(distinctIds(driver.set).as('c'))
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .where((eb) =>
      eb.and([
        ...others.map((o) => o.set.has(eb.ref('c.rule_id'))),
        ...(onRule.length > 0
          ? [
              eb.exists(
                db
                  .selectFrom('rule as r')
                  .select('r.id')
                  .where((r) => eb.and([r('r.id', '=', eb.ref('c.rule_id')), ...onRule.map((c) => c(r))])),
              ),
            ]
          : []),
      ]),
    )
    .executeTakeFirstOrThrow();
  return Number(count.total);
}

function distinctIds(set: RuleSet) {
  return set.unique ? set.ids() : set.ids().distinct();
}

async function bySize(sets: RuleSet[]) {
  const sized = await Promise.all(sets.map(async (set) => ({ set, rows: await set.size() })));
  return sized.sort((a, b) => a.rows - b.rows);
}

/**
 * `textSearchRelevance` in one statement: each query word's range of `rule_word`
 * is read once; per rule, each word's weighted BM25 term score is summed, the
 * words' document frequencies are counted over those rules (windows), and the
 * rules having every word are ranked, the total counted alongside.
 */
async function queryByRelevance(
  db: Kysely<Database>,
  studioId: string,
  params: ListingParams,
  conditions: RuleCondition[],
) {
  const words = params.filter.searchWords ?? [];
  const facets = ruleSets(db, studioId, { ...params.filter, searchWords: undefined });
  const onRule = conditions.slice(1);
  const perWord = words.map(
    (word, index) =>
      sql`select rule_id, ${sql.lit(index)} as pos, ${fieldWeight()} * tf * ${sql.lit(K1 + 1)} / (tf + ${sql.lit(K1)}) as score
        from rule_word where studio_id = ${studioId} and ${prefixSql(word)}`,
  );
  const positions = words.map((_, index) => sql.ref(`s${index}`));
  const frequencies = words.map((_, index) => sql.ref(`df${index}`));
  const idf = (df: RawBuilder<unknown>) => sql`ln(1 + (n.n - ${df} + 0.5) / (${df} + 0.5))`;
  const score = sql.join(
    words.map((_, index) => sql`${positions[index]} * ${idf(frequencies[index]!)}`),
    sql` + `,
  );
  const matched = (eb: ExpressionBuilder<Database, never>) =>
    eb.and([
      ...facets.map((f) => f.has(sql.ref<string>('d.rule_id'))),
      ...(onRule.length > 0
        ? [
            eb.exists(
              db
                .selectFrom('rule as r')
                .select('r.id')
                .where((r) =>
                  r.and([r('r.id', '=', sql.ref<string>('d.rule_id')), ...onRule.map((c) => c(r))]),
                ),
            ),
          ]
        : []),
    ]);
  const matchedSql =
    facets.length + onRule.length > 0 ? sql`and ${matched(expressionBuilder<Database, never>())}` : sql``;
  const ranked = await sql<{ rule_id: string; score: number; total: number }>`
    with u as (${sql.join(perWord, sql` union all `)}),
    g as (
      select rule_id, ${sql.join(
        words.map(
          (_, index) => sql`sum(case when pos = ${sql.lit(index)} then score end) as ${positions[index]}`,
        ),
      )}
      from u group by rule_id
    ),
    d as (
      select g.*, ${sql.join(words.map((_, index) => sql`count(${positions[index]}) over () as ${frequencies[index]}`))}
      from g
    ),
    n as (select count(*) as n from rule where studio_id = ${studioId})
    select d.rule_id, ${score} as score, count(*) over () as total
    from d cross join n
    where ${sql.join(
      positions.map((p) => sql`${p} is not null`),
      sql` and `,
    )} ${matchedSql}
    order by score desc, d.rule_id
    limit ${params.size} offset ${params.page * params.size}`.execute(db);
  const page = ranked.rows;
  if (page.length === 0) {
    // Past the end: the total still counts the matching rules.
    const sets = await bySize(ruleSets(db, studioId, params.filter));
    return { rows: [], total: await countMatching(db, conditions, sets) };
  }
  const found = await db
    .selectFrom('rule')
    .selectAll()
    .where(
      'id',
      'in',
      page.map((row) => row.rule_id),
    )
    .execute();
  const byId = new Map(found.map((row) => [row.id, row]));
  return { rows: page.map((row) => byId.get(row.rule_id)!), total: Number(page[0]!.total) };
}

function fieldWeight() {
  const cases = Object.entries(FIELD_WEIGHTS).map(
    ([field, weight]) => sql`when ${sql.lit(field)} then ${sql.lit(weight)}`,
  );
  return sql`(case field ${sql.join(cases, sql` `)} else 1 end)`;
}

/** Words beginning with `prefix`: one index range, as text compares by bytes. */
function prefixOf(eb: ExpressionBuilder<Database, 'rule_word'>, prefix: string): Expression<SqlBool> {
  return eb.and([eb('word', '>=', prefix), eb('word', '<', upperBound(prefix))]);
}

function prefixSql(prefix: string) {
  return sql<SqlBool>`word >= ${prefix} and word < ${upperBound(prefix)}`;
}

/** The first text after every text beginning with `prefix`. */
function upperBound(prefix: string): string {
  const last = prefix.codePointAt(prefix.length - 1)!;
  const lastLength = last > 0xffff ? 2 : 1;
  return prefix.slice(0, -lastLength) + String.fromCodePoint(last + 1);
}

type RuleCondition = (eb: RuleEb) => Expression<SqlBool>;

/** Conditions on the rule row's own columns; the first is the studio. */
function ruleConditions(studioId: string, filter: ListingFilter): RuleCondition[] {
  const conditions: RuleCondition[] = [(eb) => eb('r.studio_id', '=', studioId)];
  const { publishState, published, contentType, lastModified, creationDate, active, expiration } = filter;
  if (publishState) conditions.push((eb) => eb('r.publish_state', '=', publishState));
  if (published !== undefined) conditions.push((eb) => eb('r.published', '=', published ? 1 : 0));
  if (contentType) conditions.push((eb) => eb('r.content_type', '=', contentType));
  if (lastModified) conditions.push((eb) => eb.and(within(eb, 'r.last_modified', lastModified)));
  if (creationDate) conditions.push((eb) => eb.and(within(eb, 'r.creation_date', creationDate)));
  if (active) {
    conditions.push((eb) =>
      eb.or([
        activeIn(eb, 'r.staging_start', 'r.staging_end', active),
        eb.and([eb('r.published', '=', 1), activeIn(eb, 'r.live_start', 'r.live_end', active)]),
      ]),
    );
  }
  if (expiration) {
    conditions.push((eb) =>
      eb.or([
        eb.and([eb('r.staging_end', 'is not', null), ...within(eb, 'r.staging_end', expiration)]),
        eb.and([eb('r.live_end', 'is not', null), ...within(eb, 'r.live_end', expiration)]),
      ]),
    );
  }
  return conditions;
}

/** A set of rules read from a side table by `ids`. */
function ruleSet(ids: RuleSet['ids'], unique: boolean): RuleSet {
  return {
    ids,
    unique,
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
  };
}

/** The facet and search-word filters, as sets of rules from the side tables (both contents). */
function ruleSets(db: Kysely<Database>, studioId: string, filter: ListingFilter): RuleSet[] {
  const sets: RuleSet[] = [];
  const facet = (kind: string, values: string[], field = ''): RuleSet => {
    const ids = () =>
      db
        .selectFrom('rule_facet')
        .select('rule_id')
        .where('studio_id', '=', studioId)
        .where('kind', '=', kind)
        .where('value', 'in', values)
        .where('field', '=', field);
    return ruleSet(ids, values.length === 1);
  };
  if (filter.tags) sets.push(facet('tag', filter.tags));
  if (filter.groups) sets.push(facet('group', filter.groups));
  if (filter.types) sets.push(facet('type', filter.types));
  if (filter.targeted) sets.push(facet('target', [filter.targeted.value], filter.targeted.fieldName));
  for (const word of filter.searchWords ?? []) {
    const ids = () =>
      db
        .selectFrom('rule_word')
        .select('rule_id')
        .where('studio_id', '=', studioId)
        .where((w) => prefixOf(w, word));
    sets.push(ruleSet(ids, false));
  }
  return sets;
}

type DateColumn = 'r.last_modified' | 'r.creation_date' | 'r.staging_end' | 'r.live_end';

function within(eb: RuleEb, column: DateColumn, range: Range): Expression<SqlBool>[] {
  const conditions: Expression<SqlBool>[] = [];
  if (range.start !== undefined) conditions.push(eb(column, '>=', range.start));
  if (range.end !== undefined) conditions.push(eb(column, '<=', range.end));
  return conditions;
}

/** Effective at some moment of the range: starts before it ends, ends after it starts (null: open). */
function activeIn(
  eb: RuleEb,
  start: 'r.staging_start' | 'r.live_start',
  end: 'r.staging_end' | 'r.live_end',
  range: Range,
): Expression<SqlBool> {
  const conditions: Expression<SqlBool>[] = [];
  if (range.end !== undefined) conditions.push(eb.or([eb(start, 'is', null), eb(start, '<=', range.end)]));
  if (range.start !== undefined) conditions.push(eb.or([eb(end, 'is', null), eb(end, '>=', range.start)]));
  return eb.and(conditions);
}
