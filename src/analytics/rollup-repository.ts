// The SQL of the rollup: reading an hour's raw rows, finding the hours to roll, writing an
// hour's rows and the days they sum into, pruning. Rows in, rows out.
import { randomInt } from 'node:crypto';
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { RawSearch, RawSignal } from './aggregate.js';
import { idList } from './aggregate.js';
import { type AnalyticsHourTable, COUNT_COLUMNS, type RollupCounts } from './tables.js';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/** One profile's hour. */
export interface ProfileHour {
  app: string;
  profileId: string;
  hour: number;
}

function countsOf(row: RollupCounts): RollupCounts {
  const counts = {} as RollupCounts;
  for (const column of COUNT_COLUMNS) counts[column] = Number(row[column]);
  return counts;
}

/**
 * The first `limit` of a profile's counted searches in [from, before), in time order (all of
 * them without a limit). The order is the index's own, (app, profile_id, at), so a page reads
 * its own rows only, whatever the planner's statistics: ordered by (at, id), it sorted all of
 * the hour's rows after its start for every page, and a roll of n searches read about n²/500.
 */
export async function selectHourSearches(
  db: Kysely<Database>,
  { app, profileId }: ProfileHour,
  from: number,
  before: number,
  limit?: number,
): Promise<RawSearch[]> {
  const query = db
    .selectFrom('search_signal')
    .select(['id', 'query_key', 'at', 'hits', 'doc_ids', 'rule_ids', 'experiment', 'variant'])
    .where('app', '=', app)
    .where('profile_id', '=', profileId)
    .where('at', '>=', from)
    .where('at', '<', before)
    .where('counted', '=', 1)
    .orderBy('at');
  const rows = await (limit === undefined ? query : query.limit(limit)).execute();
  return rows.map((row) => ({
    id: row.id,
    queryKey: row.query_key,
    at: Number(row.at),
    hits: Number(row.hits),
    docIds: idList(row.doc_ids),
    ruleIds: idList(row.rule_ids),
    experiment: row.experiment,
    variant: row.variant,
  }));
}

/** The signals attributed to these searches. */
export async function selectSignalsOf(
  db: Kysely<Database>,
  searchIds: readonly string[],
): Promise<RawSignal[]> {
  if (searchIds.length === 0) return [];
  const rows = await db
    .selectFrom('signal')
    .select(['query_id', 'type', 'doc_id', 'position'])
    .where('query_id', 'in', searchIds)
    .execute();
  return rows.map((row) => ({
    queryId: row.query_id ?? '',
    type: row.type,
    docId: row.doc_id,
    position: row.position === null ? null : Number(row.position),
  }));
}

/**
 * One page of the rows of one kind an hour rolled up to last time, in item order after
 * `after`: a range of the primary key, read in pages so that no one answer is large.
 */
export async function selectHourRows(
  db: Kysely<Database>,
  { app, profileId, hour }: ProfileHour,
  kind: string,
  after: string | undefined,
  limit: number,
) {
  let query = db
    .selectFrom('analytics_hour')
    .selectAll()
    .where('app', '=', app)
    .where('profile_id', '=', profileId)
    .where('kind', '=', kind)
    .where('hour', '=', hour);
  if (after !== undefined) query = query.where('item', '>', after);
  const rows = await query.orderBy('item').limit(limit).execute();
  return rows.map((row) => ({ item: row.item, counts: countsOf(row) }));
}

/** Writes (inserts or replaces) some of an hour's rows. */
export async function upsertHourRows(
  trx: Transaction<Database>,
  at: ProfileHour,
  rows: ReadonlyArray<{ kind: string; item: string; counts: RollupCounts }>,
): Promise<void> {
  if (rows.length === 0) return;
  const values: AnalyticsHourTable[] = rows.map((row) => ({
    app: at.app,
    profile_id: at.profileId,
    kind: row.kind,
    hour: at.hour,
    item: row.item,
    ...row.counts,
  }));
  await trx
    .insertInto('analytics_hour')
    .values(values)
    .onConflict((oc) =>
      oc
        .columns(['app', 'profile_id', 'kind', 'hour', 'item'])
        .doUpdateSet(Object.fromEntries(COUNT_COLUMNS.map((c) => [c, sql.ref(`excluded.${c}`)]))),
    )
    .execute();
}

/** Deletes some of an hour's rows of one kind (items no search of the hour counts in any more). */
export async function deleteHourRows(
  trx: Transaction<Database>,
  { app, profileId, hour }: ProfileHour,
  kind: string,
  items: readonly string[],
): Promise<void> {
  if (items.length === 0) return;
  await trx
    .deleteFrom('analytics_hour')
    .where('app', '=', app)
    .where('profile_id', '=', profileId)
    .where('kind', '=', kind)
    .where('hour', '=', hour)
    .where('item', 'in', items)
    .execute();
}

/**
 * The hours of a profile's day that have rows: those with a total row, as every counted search
 * adds to its hour's total.
 */
export async function selectHoursOfDay(
  trx: Transaction<Database>,
  app: string,
  profileId: string,
  day: number,
): Promise<number[]> {
  const rows = await trx
    .selectFrom('analytics_hour')
    .select('hour')
    .where('app', '=', app)
    .where('profile_id', '=', profileId)
    .where('kind', '=', 'total')
    .where('hour', '>=', day)
    .where('hour', '<', day + DAY_MS)
    .execute();
  return rows.map((row) => Number(row.hour));
}

/**
 * The hourly rows of these items of one kind in these hours, to sum into the day's rows. The
 * hours are listed rather than given as the day's range, so that each (hour, item) is one seek
 * along the primary key: under a range of hours, the items were looked for among all of the
 * day's rows of the kind, for every few hundred items again.
 */
export async function selectDayHourRows(
  trx: Transaction<Database>,
  app: string,
  profileId: string,
  kind: string,
  hours: readonly number[],
  items: readonly string[],
) {
  if (hours.length === 0 || items.length === 0) return [];
  const rows = await trx
    .selectFrom('analytics_hour')
    .selectAll()
    .where('app', '=', app)
    .where('profile_id', '=', profileId)
    .where('kind', '=', kind)
    .where('hour', 'in', hours)
    .where('item', 'in', items)
    .execute();
  return rows.map((row) => ({ item: row.item, counts: countsOf(row) }));
}

/** Writes a day's rows of one kind, and deletes those of `gone`. */
export async function writeDayRows(
  trx: Transaction<Database>,
  app: string,
  profileId: string,
  kind: string,
  day: number,
  rows: ReadonlyArray<{ item: string; counts: RollupCounts }>,
  gone: readonly string[],
): Promise<void> {
  if (rows.length > 0)
    await trx
      .insertInto('analytics_day')
      .values(rows.map((row) => ({ app, profile_id: profileId, kind, day, item: row.item, ...row.counts })))
      .onConflict((oc) =>
        oc
          .columns(['app', 'profile_id', 'kind', 'day', 'item'])
          .doUpdateSet(Object.fromEntries(COUNT_COLUMNS.map((c) => [c, sql.ref(`excluded.${c}`)]))),
      )
      .execute();
  if (gone.length > 0)
    await trx
      .deleteFrom('analytics_day')
      .where('app', '=', app)
      .where('profile_id', '=', profileId)
      .where('kind', '=', kind)
      .where('day', '=', day)
      .where('item', 'in', gone)
      .execute();
}

/**
 * Gives a profile's day a new change token, in the transaction that changes its daily rows:
 * random, so that no two changes of the day, on any node, ever leave the same token.
 */
export async function markDayChanged(
  trx: Transaction<Database>,
  app: string,
  profileId: string,
  day: number,
): Promise<void> {
  const version = randomInt(1, 2 ** 47);
  await trx
    .insertInto('analytics_day_version')
    .values({ app, profile_id: profileId, day, version })
    .onConflict((oc) => oc.columns(['app', 'profile_id', 'day']).doUpdateSet({ version }))
    .execute();
}

/** Counted searches per profile hour since `since`, as the raw rows have them. */
export async function selectRawHourCounts(db: Kysely<Database>, since: number) {
  const hour = sql<number>`at - (at % ${sql.lit(HOUR_MS)})`;
  const rows = await db
    .selectFrom('search_signal')
    .select(['app', 'profile_id', hour.as('hour'), (eb) => eb.fn.countAll<number>().as('searches')])
    .where('at', '>=', since)
    .where('counted', '=', 1)
    .groupBy(['app', 'profile_id', hour])
    .execute();
  return rows.map((row) => ({
    app: row.app,
    profileId: row.profile_id,
    hour: Number(row.hour),
    searches: Number(row.searches),
  }));
}

/** Counted searches per profile hour since `sinceHour`, as the rollup has them. */
export async function selectRolledHourCounts(db: Kysely<Database>, sinceHour: number) {
  const rows = await db
    .selectFrom('analytics_hour')
    .select(['app', 'profile_id', 'hour', 'searches'])
    .where('kind', '=', 'total')
    .where('hour', '>=', sinceHour)
    .execute();
  return rows.map((row) => ({
    app: row.app,
    profileId: row.profile_id,
    hour: Number(row.hour),
    searches: Number(row.searches),
  }));
}

/** The hours of the counted searches that signals received since `since` are attributed to. */
export async function selectHoursOfSignalsReceived(
  db: Kysely<Database>,
  since: number,
): Promise<ProfileHour[]> {
  const hour = sql<number>`s.at - (s.at % ${sql.lit(HOUR_MS)})`;
  const rows = await db
    .selectFrom('signal as g')
    .innerJoin('search_signal as s', 's.id', 'g.query_id')
    .select(['s.app', 's.profile_id', hour.as('hour')])
    .where('g.received_at', '>=', since)
    .where('s.counted', '=', 1)
    .groupBy(['s.app', 's.profile_id', hour])
    .execute();
  return rows.map((row) => ({ app: row.app, profileId: row.profile_id, hour: Number(row.hour) }));
}

export async function selectDirtyHours(db: Kysely<Database>) {
  const rows = await db.selectFrom('analytics_dirty_hour').selectAll().execute();
  return rows.map((row) => ({
    app: row.app,
    profileId: row.profile_id,
    hour: Number(row.hour),
    markedAt: Number(row.marked_at),
  }));
}

/** Marks hours to roll again, in the transaction that changed their raw rows. */
export async function markDirtyHours(
  trx: Kysely<Database>,
  hours: readonly ProfileHour[],
  markedAt: number,
): Promise<void> {
  if (hours.length === 0) return;
  await trx
    .insertInto('analytics_dirty_hour')
    .values(hours.map((h) => ({ app: h.app, profile_id: h.profileId, hour: h.hour, marked_at: markedAt })))
    .onConflict((oc) => oc.columns(['app', 'profile_id', 'hour']).doUpdateSet({ marked_at: markedAt }))
    .execute();
}

/** Clears a mark once its hour was rolled, unless it was marked again since. */
export async function clearDirtyHour(
  db: Kysely<Database>,
  hour: ProfileHour,
  markedAt: number,
): Promise<void> {
  await db
    .deleteFrom('analytics_dirty_hour')
    .where('app', '=', hour.app)
    .where('profile_id', '=', hour.profileId)
    .where('hour', '=', hour.hour)
    .where('marked_at', '=', markedAt)
    .execute();
}

export async function selectState(db: Kysely<Database>, name: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('analytics_rollup_state')
    .select('value')
    .where('name', '=', name)
    .executeTakeFirst();
  return row === undefined ? undefined : Number(row.value);
}

export async function saveState(db: Kysely<Database>, name: string, value: number): Promise<void> {
  await db
    .insertInto('analytics_rollup_state')
    .values({ name, value })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value }))
    .execute();
}

/**
 * Deletes rollup rows older than `before` (epoch ms); how many went. The days go with their
 * change tokens, in one transaction: a day without a token has no rows.
 */
export async function pruneRollups(db: Kysely<Database>, before: number): Promise<number> {
  const hours = await db.deleteFrom('analytics_hour').where('hour', '<', before).executeTakeFirst();
  const day = before - (before % DAY_MS);
  const days = await db.transaction().execute(async (trx) => {
    const deleted = await trx.deleteFrom('analytics_day').where('day', '<', day).executeTakeFirst();
    await trx.deleteFrom('analytics_day_version').where('day', '<', day).execute();
    return deleted;
  });
  return Number(hours.numDeletedRows) + Number(days.numDeletedRows);
}
