// The rules listing as SQL: filters, sorts and pages answered by the database
// through the rule table's sort indexes and the side tables of both contents.
// The same statements run on SQLite and PostgreSQL (byte-ordered text on both).
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import {
  type Expression,
  type ExpressionBuilder,
  expressionBuilder,
  type Kysely,
  type SelectQueryBuilder,
  type SqlBool,
  sql,
} from 'kysely';
import { dateConditions } from '../listing/date-conditions-repository.js';
import { flattensExists, intersectsSetsFirst } from '../storage/dialect.js';
import type { Database } from '../storage/schema.js';
import type { ListingFilter, ListingParams } from './listing-params.js';
import type { SortProperty } from './listing-terms.js';
import { FIELD_WEIGHTS, type RuleRow } from './rule-rows.js';
import { queryWords, type RuleSet, ruleSets } from './rule-set-repository.js';
import type { RuleTable } from './tables.js';
import { indexAnswers } from './text-index.js';
import { textMatches } from './text-index-repository.js';

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

// Rows read per statement: a page larger than this is read in parts (see readPage).
const ROWS_PER_READ = 200;

// BM25's term-frequency saturation.
const K1 = 1.2;

// A candidate set at most this large is read whole and sorted; a larger one is
// checked row by row while walking the sort's index (about size × rules / set rows).
const DRIVE_LIMIT = 2_000;

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
  if (driver && others.length > 0 && driver.rows > DRIVE_LIMIT && intersectsSetsFirst(db)) {
    // Several large sets. When they look likely to share few rules (their sizes taken as
    // independent shares of the studio), those rules are read from the sets' indexes alone,
    // no rule row, up to a limit; within it, the page is sorted from just those rules.
    // Otherwise (or past the limit) they are dense enough that walking the sort's index
    // finds a page soon. A wrong guess costs time, never a different answer.
    const studioRules = Math.max(await ruleCount(db, studioId), 1);
    const likely = others.reduce((shared, other) => (shared * other.rows) / studioRules, driver.rows);
    if (likely <= DRIVE_LIMIT) {
      const shared = await db
        .selectFrom(driver.set.table())
        .select('c.rule_id')
        .where((eb) => eb.and(others.map((o) => o.set.has(eb.ref('c.rule_id')))))
        .limit(DRIVE_LIMIT + 1)
        .execute();
      if (shared.length <= DRIVE_LIMIT) {
        return pageAmong(
          db,
          shared.map((row) => row.rule_id),
          conditions,
          ordered,
          size,
        );
      }
    }
    // Past the limit the sets share more than DRIVE_LIMIT rules (or are guessed to).
    const probe = shortWalk(params, studioRules, Math.max(likely, DRIVE_LIMIT), driver.rows);
    const [found, total] = await Promise.all([
      readPage(db, ordered(walk(db, conditions, sets, probe)), size),
      countMatching(db, studioId, conditions, sets),
    ]);
    return { rows: found, total };
  }
  let rows: PageQuery;
  if (driver && driver.rows <= DRIVE_LIMIT) {
    rows = ordered(
      db
        .selectFrom(driver.set.table())
        .innerJoin('rule as r', 'r.id', 'c.rule_id')
        .selectAll('r')
        .where((eb) =>
          eb.and([...conditions.map((c) => c(eb)), ...others.map((o) => o.set.has(eb.ref('r.id')))]),
        ),
    );
  } else {
    // PostgreSQL would read the whole set and sort it unless the walk's checks are probes;
    // they are, when the walk is expected to be the shorter read.
    const probe =
      driver !== undefined &&
      flattensExists(db) &&
      shortWalk(params, await ruleCount(db, studioId), driver.rows, driver.rows);
    rows = ordered(walk(db, conditions, sets, probe));
  }
  const [found, total] = await Promise.all([
    readPage(db, rows, size),
    countMatching(db, studioId, conditions, sets),
  ]);
  return { rows: found, total };
}

type PageQuery = SelectQueryBuilder<Database & { r: RuleTable }, 'r', RuleRow>;

/** A page of the rules among `ids` that meet the conditions on the rule row, and their number. */
async function pageAmong(
  db: Kysely<Database>,
  ids: string[],
  conditions: RuleCondition[],
  ordered: (query: PageQuery) => PageQuery,
  size: number,
): Promise<{ rows: RuleRow[]; total: number }> {
  if (ids.length === 0) return { rows: [], total: 0 };
  const among = (eb: RuleEb) => eb.and([...conditions.map((c) => c(eb)), eb('r.id', 'in', ids)]);
  const page = readPage(db, ordered(db.selectFrom('rule as r').selectAll('r').where(among)), size);
  // The sets' rows are the studio's; only conditions beyond the studio can leave a rule out.
  const total =
    conditions.length === 1
      ? ids.length
      : db
          .selectFrom('rule as r')
          .select((eb) => eb.fn.countAll<number>().as('total'))
          .where(among)
          .executeTakeFirstOrThrow()
          .then((row) => Number(row.total));
  const [rows, counted] = await Promise.all([page, total]);
  return { rows, total: counted };
}

/**
 * The studio's rules in the sort's index order, each checked against the conditions and
 * sets; with `probe`, by checks the planner must keep per rule (it then stops at the page's
 * end), else by checks it may turn into joins over the sets.
 */
function walk(
  db: Kysely<Database>,
  conditions: RuleCondition[],
  sets: Array<{ set: RuleSet }>,
  probe = false,
) {
  const check = (set: RuleSet, id: Expression<string>) => (probe && set.probe ? set.probe(id) : set.has(id));
  return db
    .selectFrom('rule as r')
    .selectAll('r')
    .where((eb) =>
      eb.and([...conditions.map((c) => c(eb)), ...sets.map((o) => check(o.set, eb.ref('r.id')))]),
    );
}

/**
 * Whether walking the sort's index to the page's end reads fewer rules than the set it
 * filters by: with `matching` of `studioRules` spread through the order, the page's end
 * lies about (offset + size) × studioRules / matching rules into the walk. Joining the set
 * reads `setRows` rules whatever the page.
 */
function shortWalk(params: ListingParams, studioRules: number, matching: number, setRows: number): boolean {
  const end = (params.page + 1) * params.size;
  return (end * Math.max(studioRules, 1)) / Math.max(matching, 1) <= setRows;
}

/**
 * The rows of a page. A large page read in one statement holds SQLite, and with it the
 * event loop, for as long as reading every content takes (about 50 ms for 1,000 rules):
 * its ids come first, then its rows a few hundred at a time with the loop served between.
 */
async function readPage(db: Kysely<Database>, query: PageQuery, size: number): Promise<RuleRow[]> {
  if (size <= ROWS_PER_READ) return query.execute();
  const ids = (await query.clearSelect().select('r.id').execute()).map((row) => row.id);
  const byId = new Map<string, RuleRow>();
  for (let i = 0; i < ids.length; i += ROWS_PER_READ) {
    await yieldToEventLoop();
    const part = await db
      .selectFrom('rule')
      .selectAll()
      .where('id', 'in', ids.slice(i, i + ROWS_PER_READ))
      .execute();
    for (const row of part) byId.set(row.id, row);
  }
  // A rule removed between the two reads is left out of the page.
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * The number of matching rules, read from the smallest side table range when
 * there is one (the rule rows are only visited for conditions on their columns).
 */
async function countMatching(
  db: Kysely<Database>,
  studioId: string,
  conditions: RuleCondition[],
  sets: Array<{ set: RuleSet; rows: number }>,
): Promise<number> {
  const [driver, ...others] = sets;
  // Every rule of the studio: its maintained count, not a count over its rows.
  if (!driver && conditions.length === 1) return ruleCount(db, studioId);
  if (!driver) {
    const count = await db
      .selectFrom('rule as r')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where((eb) => eb.and(conditions.map((c) => c(eb))))
      .executeTakeFirstOrThrow();
    return Number(count.total);
  }
  const onRule = conditions.slice(1); // the first is the studio, which the side rows carry
  if (others.length === 0 && onRule.length === 0 && driver.set.exact) return driver.rows;
  const count = await db
    .selectFrom(driver.set.table())
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

/** The number of rules in the studio, as the rule writes keep it. */
async function ruleCount(db: Kysely<Database>, studioId: string): Promise<number> {
  const count = await db
    .selectFrom('rule_count')
    .select('rules')
    .where('studio_id', '=', studioId)
    .executeTakeFirst();
  return count?.rules ?? 0;
}

async function bySize(sets: RuleSet[]) {
  const sized = await Promise.all(sets.map(async (set) => ({ set, rows: await set.size() })));
  return sized.sort((a, b) => a.rows - b.rows);
}

/**
 * `textSearchRelevance`: the engine's full-text index matches and ranks (FTS5 bm25,
 * PostgreSQL ts_rank), the other filters check each match, the total counted alongside.
 */
async function queryByRelevance(
  db: Kysely<Database>,
  studioId: string,
  params: ListingParams,
  conditions: RuleCondition[],
) {
  const words = params.filter.searchWords ?? [];
  if (!indexAnswers(words)) return queryByWordTable(db, studioId, params, conditions);
  const ranked = await sql<{ rule_id: string; score: number; total: number }>`
    select m.rule_id, m.score, count(*) over () as total
    from ${textMatches(db, studioId, words, true)} m ${otherFilters(db, studioId, params, conditions, 'm')}
    order by m.score desc, m.rule_id
    limit ${params.size} offset ${params.page * params.size}`.execute(db);
  return rankedPage(db, studioId, params, conditions, ranked.rows);
}

/** The conditions of the listing other than the search, on the rules of `alias.rule_id`. */
function otherFilters(
  db: Kysely<Database>,
  studioId: string,
  params: ListingParams,
  conditions: RuleCondition[],
  alias: string,
) {
  const facets = ruleSets(db, studioId, { ...params.filter, searchWords: undefined });
  const onRule = conditions.slice(1);
  const ruleId = sql.ref<string>(`${alias}.rule_id`);
  const matched = (eb: ExpressionBuilder<Database, never>) =>
    eb.and([
      ...facets.map((f) => f.has(ruleId)),
      ...(onRule.length > 0
        ? [
            eb.exists(
              db
                .selectFrom('rule as r')
                .select('r.id')
                .where((r) => r.and([r('r.id', '=', ruleId), ...onRule.map((c) => c(r))])),
            ),
          ]
        : []),
    ]);
  return facets.length + onRule.length > 0
    ? sql`where ${matched(expressionBuilder<Database, never>())}`
    : sql``;
}

/** The rules of a ranked page, in its order, with the total. */
async function rankedPage(
  db: Kysely<Database>,
  studioId: string,
  params: ListingParams,
  conditions: RuleCondition[],
  page: Array<{ rule_id: string; total: number }>,
) {
  if (page.length === 0) {
    // Past the end: the total still counts the matching rules.
    const sets = await bySize(ruleSets(db, studioId, params.filter));
    return { rows: [], total: await countMatching(db, studioId, conditions, sets) };
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

/**
 * Relevance from the word table, for a query word longer than the full-text index keeps:
 * each word's range of `rule_word` is read once (`u`, one row per rule and word, its
 * weighted BM25 term score), the words' document frequencies are counted over those
 * rules (`df`), and the rules having every word are ranked, the total counted alongside.
 */
async function queryByWordTable(
  db: Kysely<Database>,
  studioId: string,
  params: ListingParams,
  conditions: RuleCondition[],
) {
  const words = params.filter.searchWords ?? [];
  const ranked = await sql<{ rule_id: string; score: number; total: number }>`
    with u as (
      select w.rule_id, q.pos, sum(${fieldWeight()} * w.tf * ${sql.lit(K1 + 1)} / (w.tf + ${sql.lit(K1)})) as s
      from rule_word w join ${queryWords(words)} q on w.word >= q.lo and w.word < q.hi
      where w.studio_id = ${studioId}
      group by w.rule_id, q.pos
    ),
    df as (select pos, count(*) as df from u group by pos),
    n as (select count(*) as n from rule where studio_id = ${studioId}),
    d as (
      select u.rule_id, sum(u.s * ln(1 + (n.n - df.df + 0.5) / (df.df + 0.5))) as score
      from u join df on df.pos = u.pos cross join n
      group by u.rule_id
      having count(*) = ${sql.lit(words.length)}
    )
    select d.rule_id, d.score, count(*) over () as total
    from d ${otherFilters(db, studioId, params, conditions, 'd')}
    order by d.score desc, d.rule_id
    limit ${params.size} offset ${params.page * params.size}`.execute(db);
  return rankedPage(db, studioId, params, conditions, ranked.rows);
}

function fieldWeight() {
  const cases = Object.entries(FIELD_WEIGHTS).map(
    ([field, weight]) => sql`when ${sql.lit(field)} then ${sql.lit(weight)}`,
  );
  return sql`(case w.field ${sql.join(cases, sql` `)} else 1 end)`;
}

type RuleCondition = (eb: RuleEb) => Expression<SqlBool>;

/** Conditions on the rule row's own columns; the first is the studio. */
function ruleConditions(studioId: string, filter: ListingFilter): RuleCondition[] {
  const conditions: RuleCondition[] = [(eb) => eb('r.studio_id', '=', studioId)];
  const { publishState, published, contentType } = filter;
  if (publishState) conditions.push((eb) => eb('r.publish_state', '=', publishState));
  if (published !== undefined) conditions.push((eb) => eb('r.published', '=', published ? 1 : 0));
  if (contentType) conditions.push((eb) => eb('r.content_type', '=', contentType));
  for (const condition of dateConditions(filter, DATE_COLUMNS)) conditions.push(() => condition);
  return conditions;
}

// The rule row's columns the listing's date filters read.
const DATE_COLUMNS = {
  lastModified: 'r.last_modified',
  creationDate: 'r.creation_date',
  published: 'r.published',
  staging: { start: 'r.staging_start', end: 'r.staging_end' },
  live: { start: 'r.live_start', end: 'r.live_end' },
};
