// The rules listing as SQL: filters, sorts and pages answered by the database
// through the rule table's sort indexes and the side tables of both contents.
// The same statements run on SQLite and PostgreSQL (byte-ordered text on both).
import { type Expression, type ExpressionBuilder, type Kysely, type SqlBool, sql } from 'kysely';
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

/** One page of a studio's rules and the number of rules matching in all. */
export async function queryListing(
  db: Kysely<Database>,
  studioId: string,
  params: ListingParams,
): Promise<{ rows: RuleRow[]; total: number }> {
  const { filter, sort, page, size } = params;
  const where = (eb: RuleEb) => filterExpression(db, eb, studioId, filter);
  if (sort === 'relevance') return queryByRelevance(db, studioId, params, where);

  let rows = db.selectFrom('rule as r').selectAll('r').where(where);
  for (const key of sort) rows = rows.orderBy(SORT_COLUMNS[key.property], key.descending ? 'desc' : 'asc');
  const [found, count] = await Promise.all([
    rows
      .orderBy('r.id', 'asc')
      .limit(size)
      .offset(page * size)
      .execute(),
    db
      .selectFrom('rule as r')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where(where)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows: found, total: Number(count.total) };
}

async function queryByRelevance(
  db: Kysely<Database>,
  studioId: string,
  params: ListingParams,
  where: (eb: RuleEb) => Expression<SqlBool>,
) {
  const words = params.filter.searchWords ?? [];
  const weights = await inverseDocumentFrequencies(db, studioId, words);
  // One row per rule and query word (its weighted BM25 term score), summed per rule;
  // a rule must have every query word (AND), as the filter has.
  const perWord = words.map((word, index) =>
    db
      .selectFrom('rule_word')
      .select([
        'rule_id',
        sql<number>`${sql.lit(index)}`.as('position'),
        sql<number>`sum(${fieldWeight()} * tf * ${sql.lit(K1 + 1)} / (tf + ${sql.lit(K1)})) * ${sql.lit(weights[index]!)}`.as(
          'score',
        ),
      ])
      .where('studio_id', '=', studioId)
      .where((eb) => prefixOf(eb, word))
      .groupBy('rule_id'),
  );
  const union = perWord.slice(1).reduce((all, next) => all.unionAll(next), perWord[0]!);
  const scores = db
    .selectFrom(union.as('w'))
    .select(['w.rule_id', sql<number>`sum(w.score)`.as('score')])
    .groupBy('w.rule_id')
    .having(sql`count(*)`, '=', words.length);
  const matching = db.selectFrom('rule as r').where(where).innerJoin(scores.as('s'), 's.rule_id', 'r.id');
  const [rows, count] = await Promise.all([
    matching
      .selectAll('r')
      .orderBy('s.score', 'desc')
      .orderBy('r.id', 'asc')
      .limit(params.size)
      .offset(params.page * params.size)
      .execute(),
    matching.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

/** BM25's idf of each query word (as a prefix): rare words weigh more. */
async function inverseDocumentFrequencies(db: Kysely<Database>, studioId: string, words: string[]) {
  const all = await db
    .selectFrom('rule')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('studio_id', '=', studioId)
    .executeTakeFirstOrThrow();
  const n = Number(all.n);
  return Promise.all(
    words.map(async (word) => {
      const found = await db
        .selectFrom('rule_word')
        .select(sql<number>`count(distinct rule_id)`.as('df'))
        .where('studio_id', '=', studioId)
        .where((eb) => prefixOf(eb, word))
        .executeTakeFirstOrThrow();
      const df = Number(found.df);
      return Math.log(1 + (n - df + 0.5) / (df + 0.5));
    }),
  );
}

function fieldWeight() {
  const cases = Object.entries(FIELD_WEIGHTS).map(
    ([field, weight]) => sql`when ${sql.lit(field)} then ${sql.lit(weight)}`,
  );
  return sql`(case field ${sql.join(cases, sql` `)} else 1 end)`;
}

/** Words beginning with `prefix`: one index range, as text compares by bytes. */
function prefixOf(eb: ExpressionBuilder<Database, 'rule_word'>, prefix: string): Expression<SqlBool> {
  const last = prefix.codePointAt(prefix.length - 1)!;
  const lastLength = last > 0xffff ? 2 : 1;
  const upper = prefix.slice(0, -lastLength) + String.fromCodePoint(last + 1);
  return eb.and([eb('word', '>=', prefix), eb('word', '<', upper)]);
}

function filterExpression(
  db: Kysely<Database>,
  eb: RuleEb,
  studioId: string,
  filter: ListingFilter,
): Expression<SqlBool> {
  const conditions: Expression<SqlBool>[] = [eb('r.studio_id', '=', studioId)];
  const facet = (kind: string, values: string[], field = '') =>
    eb(
      'r.id',
      'in',
      db
        .selectFrom('rule_facet')
        .select('rule_id')
        .where('studio_id', '=', studioId)
        .where('kind', '=', kind)
        .where('value', 'in', values)
        .where('field', '=', field),
    );
  if (filter.tags) conditions.push(facet('tag', filter.tags));
  if (filter.groups) conditions.push(facet('group', filter.groups));
  if (filter.types) conditions.push(facet('type', filter.types));
  if (filter.targeted) conditions.push(facet('target', [filter.targeted.value], filter.targeted.fieldName));
  for (const word of filter.searchWords ?? []) {
    const rules = db
      .selectFrom('rule_word')
      .select('rule_id')
      .where('studio_id', '=', studioId)
      .where((w) => prefixOf(w, word));
    conditions.push(eb('r.id', 'in', rules));
  }
  if (filter.publishState) conditions.push(eb('r.publish_state', '=', filter.publishState));
  if (filter.published !== undefined) conditions.push(eb('r.published', '=', filter.published ? 1 : 0));
  if (filter.contentType) conditions.push(eb('r.content_type', '=', filter.contentType));
  if (filter.lastModified) conditions.push(...within(eb, 'r.last_modified', filter.lastModified));
  if (filter.creationDate) conditions.push(...within(eb, 'r.creation_date', filter.creationDate));
  if (filter.active) {
    conditions.push(
      eb.or([
        activeIn(eb, 'r.staging_start', 'r.staging_end', filter.active),
        eb.and([eb('r.published', '=', 1), activeIn(eb, 'r.live_start', 'r.live_end', filter.active)]),
      ]),
    );
  }
  if (filter.expiration) {
    const { expiration } = filter;
    conditions.push(
      eb.or([
        eb.and([eb('r.staging_end', 'is not', null), ...within(eb, 'r.staging_end', expiration)]),
        eb.and([eb('r.live_end', 'is not', null), ...within(eb, 'r.live_end', expiration)]),
      ]),
    );
  }
  return eb.and(conditions);
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
