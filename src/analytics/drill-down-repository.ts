// The SQL of a search's drill-down: its counted response signals within a range of days, each
// with the signals attributed to it (one row per signal, or one without when it has none).
// It reads the raw rows, through search_signal's (app, profile, query key, time) index.
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { DayRange } from './answers-repository.js';
import { DAY_MS } from './rollup-repository.js';

export interface SearchSignalRow {
  id: string;
  ruleIds: string;
  type: string | null;
  docId: string | null;
}

export async function selectSearchWithSignals(
  db: Kysely<Database>,
  range: DayRange,
  queryKey: string,
): Promise<SearchSignalRow[]> {
  return db
    .selectFrom('search_signal as s')
    .leftJoin('signal as g', 'g.query_id', 's.id')
    .where('s.app', '=', range.app)
    .where('s.profile_id', '=', range.profileId)
    .where('s.query_key', '=', queryKey)
    .where('s.at', '>=', range.from)
    .where('s.at', '<', range.to + DAY_MS)
    .where('s.counted', '=', 1)
    .select(['s.id as id', 's.rule_ids as ruleIds', 'g.type as type', 'g.doc_id as docId'])
    .execute();
}
