// Searches over time: the logged searches of an instance per hour, for the console's chart.
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { selectHourlyTotals, selectInstance } from './repository.js';
import type { SearchCounts } from './schemas.js';
import { hourOf } from './search-log.js';
import { instanceNotFound } from './service.js';

const HOUR_MS = 3_600_000;

/**
 * The searches of instance `id` in each of the last `hours` hours (the current one last;
 * by default the instance's top-terms window), every hour present, 0 when none was logged.
 */
export async function searchesPerHour(
  db: Kysely<Database>,
  id: string,
  hours: number | undefined,
  now: Date,
): Promise<SearchCounts> {
  const instance = await selectInstance(db, id);
  if (!instance) throw instanceNotFound(id);
  const span = hours ?? instance.top_terms_window_days * 24;
  const current = now.getTime();
  const first = current - (span - 1) * HOUR_MS;
  const counted = new Map(
    (await selectHourlyTotals(db, id, hourOf(first))).map((row) => [row.hour, row.count]),
  );
  const series = Array.from({ length: span }, (_, i) => {
    const hour = hourOf(first + i * HOUR_MS);
    return { hour, count: counted.get(hour) ?? 0 };
  });
  return { instance: id, hours: series, total: series.reduce((sum, h) => sum + h.count, 0) };
}
