// SQL of the contents rule evaluation reads: a studio's live rules a page at a time, in the
// order of an index (so no page sorts the studio), and its staging rules for previews.
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

/** A live rule as read for evaluation: its content and what stamps it. */
export interface LiveRuleRow {
  id: string;
  creation_date: string;
  live: string | null;
  live_version: number;
  last_modified: string;
}

/** Where a page of live rules starts: after this rule in (creation date, id) order. */
export interface LivePagePosition {
  creationDate: string;
  id: string;
}

/** The studio's live rules after `after` in (creation date, id) order, at most `limit`. */
export async function selectLiveRulesPage(
  db: Kysely<Database>,
  studioId: string,
  after: LivePagePosition | undefined,
  limit: number,
): Promise<LiveRuleRow[]> {
  let query = liveRulesQuery(db, studioId).select([
    'id',
    'creation_date',
    'live',
    'live_version',
    'last_modified',
  ]);
  if (after) {
    const { creationDate, id } = after;
    query = query.where((eb) => eb(eb.refTuple('creation_date', 'id'), '>', eb.tuple(creationDate, id)));
  }
  return query.orderBy('creation_date').orderBy('id').limit(limit).execute();
}

/** As `selectLiveRulesPage`, without reading the contents: what stamps each rule. */
export async function selectLiveStampsPage(
  db: Kysely<Database>,
  studioId: string,
  after: LivePagePosition | undefined,
  limit: number,
): Promise<Array<Omit<LiveRuleRow, 'live'>>> {
  let query = liveRulesQuery(db, studioId).select(['id', 'creation_date', 'live_version', 'last_modified']);
  if (after) {
    const { creationDate, id } = after;
    query = query.where((eb) => eb(eb.refTuple('creation_date', 'id'), '>', eb.tuple(creationDate, id)));
  }
  return query.orderBy('creation_date').orderBy('id').limit(limit).execute();
}

/** Those of the given rules of the studio that are live and not marked for deletion. */
export async function selectLiveRulesByIds(
  db: Kysely<Database>,
  studioId: string,
  ids: readonly string[],
): Promise<LiveRuleRow[]> {
  if (ids.length === 0) return [];
  return liveRulesQuery(db, studioId)
    .select(['id', 'creation_date', 'live', 'live_version', 'last_modified'])
    .where('id', 'in', [...ids])
    .execute();
}

/** Every rule of the studio with its staging content (unparsed). */
export async function selectStagingRules(
  db: Kysely<Database>,
  studioId: string,
): Promise<Array<{ id: string; creation_date: string; staging: string }>> {
  return db
    .selectFrom('rule')
    .select(['id', 'creation_date', 'staging'])
    .where('studio_id', '=', studioId)
    .execute();
}

function liveRulesQuery(db: Kysely<Database>, studioId: string) {
  return (
    db
      .selectFrom('rule')
      .where('studio_id', '=', studioId)
      .where('live', 'is not', null)
      // The mark, without reading every staging content: the stored JSON is written without
      // spaces, and a quote inside a text is escaped, so only the field itself reads like this.
      .where('staging', 'not like', MARKED)
  );
}

const MARKED = '%"deleted":true%';
