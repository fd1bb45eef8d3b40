// The rewrites listing as SQL: conditions on the rewrite row (the shared date conditions),
// the shared word search over the rewrites' word index, sort keys or the shared relevance
// score, with the id as tie-break.
import { type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import { dateConditions } from '../listing/date-conditions-repository.js';
import { wordRelevance, wordSearchSet } from '../listing/word-search-repository.js';
import type { Database } from '../storage/schema.js';
import type { RewriteListingParams } from './listing.js';
import type { StoredRewrite } from './rewrite-record.js';
import { toStoredRewrite } from './rewrite-rows.js';
import type { RewriteResponse, RewriteSortProperty } from './schemas.js';

const SORT_COLUMNS = {
  type: 'qr.type',
  creationDate: 'qr.creation_date',
  lastModified: 'qr.last_modified',
  createdBy: 'qr.created_by',
  lastModifiedBy: 'qr.last_modified_by',
  publishState: 'qr.publish_state',
  effectiveStart: 'qr.sort_start',
  effectiveEnd: 'qr.sort_end',
} as const satisfies Record<RewriteSortProperty, string>;

const DATE_COLUMNS = {
  lastModified: 'qr.last_modified',
  creationDate: 'qr.creation_date',
  published: 'qr.published',
  staging: { start: 'qr.staging_start', end: 'qr.staging_end' },
  live: { start: 'qr.live_start', end: 'qr.live_end' },
};

const REWRITE_WORDS = { table: 'query_rewrite_word', id: 'rewrite_id', items: 'query_rewrite' } as const;

/** One page of a studio's rewrites, presented, and the number matching in all. */
export async function queryRewriteListing(
  db: Kysely<Database>,
  studioId: string,
  params: RewriteListingParams,
  present: (rewrite: StoredRewrite) => RewriteResponse,
): Promise<{ content: RewriteResponse[]; total: number }> {
  const { filter, sort, page, size } = params;
  const conditions: RawBuilder<SqlBool>[] = [sql<SqlBool>`qr.studio_id = ${studioId}`];
  if (filter.types) conditions.push(sql<SqlBool>`qr.type in (${sql.join(filter.types)})`);
  if (filter.publishState) conditions.push(sql<SqlBool>`qr.publish_state = ${filter.publishState}`);
  if (filter.published !== undefined)
    conditions.push(sql<SqlBool>`qr.published = ${filter.published ? 1 : 0}`);
  conditions.push(...dateConditions(filter, DATE_COLUMNS));
  if (filter.searchWords?.length) {
    const words = wordSearchSet(db, studioId, filter.searchWords, REWRITE_WORDS);
    conditions.push(sql<SqlBool>`${words.has(sql.ref<string>('qr.id'))}`);
  }
  const where = sql.join(conditions, sql` and `);
  const ranked =
    sort === 'relevance'
      ? sql`join ${wordRelevance(studioId, filter.searchWords ?? [], REWRITE_WORDS)} on r.item_id = qr.id`
      : sql``;
  const order = sql.join([
    ...(sort === 'relevance'
      ? [sql`r.score desc`]
      : sort.map(
          (key) => sql`${sql.ref(SORT_COLUMNS[key.property])} ${sql.raw(key.descending ? 'desc' : 'asc')}`,
        )),
    sql`qr.id asc`,
  ]);
  const [rows, count] = await Promise.all([
    sql<Parameters<typeof toStoredRewrite>[0]>`select qr.* from query_rewrite qr ${ranked} where ${where}
      order by ${order} limit ${size} offset ${page * size}`.execute(db),
    sql<{ total: number }>`select count(*) as total from query_rewrite qr where ${where}`.execute(db),
  ]);
  return {
    content: rows.rows.map((row) => present(toStoredRewrite(row))),
    total: Number(count.rows[0]?.total ?? 0),
  };
}
