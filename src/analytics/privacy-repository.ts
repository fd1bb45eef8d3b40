// The SQL of a privacy request: one shopper's raw rows of an app, found and deleted.
import type { Kysely } from 'kysely';
import { chunks } from '../storage/chunks.js';
import type { Database } from '../storage/schema.js';
import type { ProfileHour } from './rollup-repository.js';
import { HOUR_MS } from './rollup-repository.js';

const CHUNK = 500;

type ShopperSearch = { id: string; profile_id: string; at: number | string };

/**
 * The app's searches made with the shopper's value: as their user id, or as the value of an
 * experiment's uniqueIdParameter (which may be another parameter). Each lookup seeks an index
 * rather than reading the table: the user id along its own, the experiment's value along the
 * experiments' index (app, experiment, variant, unit_hash), once for each experiment and
 * variant the app's searches name, deleted experiments' included.
 */
async function selectShopperSearches(
  trx: Kysely<Database>,
  app: string,
  hash: string,
): Promise<ShopperSearch[]> {
  const found = new Map<string, ShopperSearch>();
  const keep = (rows: ShopperSearch[]) => {
    for (const row of rows) found.set(row.id, row);
  };
  const searches = trx.selectFrom('search_signal').select(['id', 'profile_id', 'at']).where('app', '=', app);
  keep(await searches.where('user_hash', '=', hash).execute());
  for (const { experiment, variant } of await experimentVariants(trx, app))
    keep(
      await searches
        .where('experiment', '=', experiment)
        .where('variant', '=', variant)
        .where('unit_hash', '=', hash)
        .execute(),
    );
  return [...found.values()];
}

/**
 * The distinct experiment and variant pairs of the app's searches, found by skipping along the
 * experiments' index from one pair to the next: a seek per pair, however many searches each has.
 */
export async function experimentVariants(
  trx: Kysely<Database>,
  app: string,
): Promise<{ experiment: string; variant: string }[]> {
  const pairs: { experiment: string; variant: string }[] = [];
  const inApp = trx.selectFrom('search_signal').where('app', '=', app);
  let experiment: string | undefined;
  for (;;) {
    const next = await inApp
      .select('experiment')
      .where('experiment', experiment === undefined ? 'is not' : '>', experiment ?? null)
      .orderBy('experiment')
      .limit(1)
      .executeTakeFirst();
    if (next?.experiment == null) return pairs;
    experiment = next.experiment;
    let variant: string | undefined;
    for (;;) {
      const row = await inApp
        .select('variant')
        .where('experiment', '=', experiment)
        .where('variant', variant === undefined ? 'is not' : '>', variant ?? null)
        .orderBy('variant')
        .limit(1)
        .executeTakeFirst();
      if (row?.variant == null) break;
      variant = row.variant;
      pairs.push({ experiment, variant });
    }
  }
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
  for (const chunk of chunks(searchIds, CHUNK))
    for (const row of await trx.selectFrom('signal').select('id').where('query_id', 'in', chunk).execute())
      signalIds.add(row.id);
  // The hours of the searches that lose a signal, the shopper's or not.
  const touched = new Map<string, ProfileHour>();
  const touch = (profileId: string, at: number) => {
    const hour = at - (at % HOUR_MS);
    touched.set(`${profileId}\u0000${hour}`, { app, profileId, hour });
  };
  for (const s of searches) touch(s.profile_id, Number(s.at));
  for (const chunk of chunks([...attributedTo], CHUNK))
    for (const s of await trx
      .selectFrom('search_signal')
      .select(['profile_id', 'at'])
      .where('app', '=', app)
      .where('id', 'in', chunk)
      .execute())
      touch(s.profile_id, Number(s.at));
  for (const chunk of chunks([...signalIds], CHUNK))
    await trx.deleteFrom('signal').where('id', 'in', chunk).execute();
  for (const chunk of chunks(searchIds, CHUNK))
    await trx.deleteFrom('search_signal').where('id', 'in', chunk).execute();
  return { searches: searchIds.length, signals: signalIds.size, hours: [...touched.values()] };
}
