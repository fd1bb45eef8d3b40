// The SQL of a privacy request: one shopper's raw rows of an app, found and deleted.
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { ProfileHour } from './rollup-repository.js';
import { HOUR_MS } from './rollup-repository.js';

const CHUNK = 500;

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/**
 * The app's searches made with the shopper's value: as their user id, or as the value of an
 * experiment's uniqueIdParameter (which may be another parameter). Two lookups, each along
 * its own index, rather than one `or` a planner might read the table for.
 */
async function selectShopperSearches(trx: Kysely<Database>, app: string, hash: string) {
  const found = new Map<string, { id: string; profile_id: string; at: number | string }>();
  for (const column of ['user_hash', 'unit_hash'] as const)
    for (const row of await trx
      .selectFrom('search_signal')
      .select(['id', 'profile_id', 'at'])
      .where(column, '=', hash)
      .where('app', '=', app)
      .execute())
      found.set(row.id, row);
  return [...found.values()];
}

/**
 * Deletes the app's searches of the shopper, the signals of the shopper and the signals
 * attributed to those searches; answers what went and the profile hours it touched.
 */
export async function deleteShopperRows(
  trx: Kysely<Database>,
  app: string,
  userHash: string,
): Promise<{ searches: number; signals: number; hours: ProfileHour[] }> {
  const searches = await selectShopperSearches(trx, app, userHash);
  const searchIds = searches.map((s) => s.id);
  const signalIds = new Set<string>();
  const attributedTo = new Set<string>();
  const own = await trx
    .selectFrom('signal')
    .select(['id', 'query_id'])
    .where('app', '=', app)
    .where('user_hash', '=', userHash)
    .execute();
  for (const row of own) {
    signalIds.add(row.id);
    if (row.query_id !== null) attributedTo.add(row.query_id);
  }
  for (const chunk of chunks(searchIds))
    for (const row of await trx.selectFrom('signal').select('id').where('query_id', 'in', chunk).execute())
      signalIds.add(row.id);
  // The hours of the searches that lose a signal, the shopper's or not.
  const touched = new Map<string, ProfileHour>();
  const touch = (profileId: string, at: number) => {
    const hour = at - (at % HOUR_MS);
    touched.set(`${profileId}\u0000${hour}`, { app, profileId, hour });
  };
  for (const s of searches) touch(s.profile_id, Number(s.at));
  for (const chunk of chunks([...attributedTo]))
    for (const s of await trx
      .selectFrom('search_signal')
      .select(['profile_id', 'at'])
      .where('app', '=', app)
      .where('id', 'in', chunk)
      .execute())
      touch(s.profile_id, Number(s.at));
  for (const chunk of chunks([...signalIds]))
    await trx.deleteFrom('signal').where('id', 'in', chunk).execute();
  for (const chunk of chunks(searchIds))
    await trx.deleteFrom('search_signal').where('id', 'in', chunk).execute();
  return { searches: searchIds.length, signals: signalIds.size, hours: [...touched.values()] };
}
