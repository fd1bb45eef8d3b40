// An experiment's results: per variant its searches, shoppers and rates (each with its 95 %
// Wilson interval), and each variant against the control (difference, interval, p-value of
// the two-proportion z test, sample size). Searches and rates come from the rollups of the
// signals (kind `variant`), shoppers from the response signals themselves.
import type { Kysely } from 'kysely';
import { variantItem } from '../analytics/aggregate.js';
import type { Database } from '../storage/schema.js';
import { selectShoppers, selectVariantCounts, type VariantCounts } from './metrics-repository.js';
import type { ExperimentMetrics, RateName } from './schemas.js';
import { getExperiment } from './service.js';
import { compare, wilson } from './statistics.js';

const RATES: ReadonlyArray<[RateName, keyof Omit<VariantCounts, 'item' | 'searches'>]> = [
  ['ctr', 'clickSearches'],
  ['conversionRate', 'conversionSearches'],
  ['noResultRate', 'noResultSearches'],
];

export const METHOD =
  'Rates are fractions of a variant’s counted searches. Intervals: Wilson score, 95 %. Against the control: two-sided two-proportion z test (pooled standard error), difference interval with the unpooled standard error; searches are taken as independent trials.';

export async function experimentMetrics(
  db: Kysely<Database>,
  app: string,
  id: string,
  now: Date,
): Promise<ExperimentMetrics> {
  const experiment = await getExperiment(db, app, id, now);
  const items = experiment.variants.map((variant) => variantItem(id, variant.id));
  const [rows, shoppers] = await Promise.all([
    selectVariantCounts(db, app, items),
    selectShoppers(db, app, id),
  ]);
  const byItem = new Map(rows.map((row) => [row.item, row]));
  const counts = experiment.variants.map(
    (variant) =>
      byItem.get(variantItem(id, variant.id)) ?? {
        item: '',
        searches: 0,
        noResultSearches: 0,
        clickSearches: 0,
        conversionSearches: 0,
      },
  );
  const control = counts[0]!;
  const sampleSize: Record<RateName, number | null> = { ctr: null, conversionRate: null, noResultRate: null };
  const variants = experiment.variants.map((variant, i) => {
    const own = counts[i]!;
    const rates = Object.fromEntries(
      RATES.map(([rate, field]) => [rate, wilson(own[field], own.searches)]),
    ) as Record<RateName, ReturnType<typeof wilson>>;
    const entry = {
      id: variant.id,
      ...(variant.name === undefined ? {} : { name: variant.name }),
      control: i === 0,
      searches: own.searches,
      shoppers: shoppers.get(variant.id) ?? 0,
      ...rates,
    };
    if (i === 0) return entry;
    const vsControl = Object.fromEntries(
      RATES.map(([rate, field]) => {
        const comparison = compare(
          { successes: control[field], trials: control.searches },
          { successes: own[field], trials: own.searches },
        );
        const needed = comparison.sampleSize;
        const before = sampleSize[rate];
        if (needed !== null) sampleSize[rate] = before === null ? needed : Math.max(before, needed);
        return [rate, comparison];
      }),
    ) as Record<RateName, ReturnType<typeof compare>>;
    return { ...entry, vsControl };
  });
  return { experiment: id, confidenceLevel: 0.95, method: METHOD, variants, sampleSize };
}
