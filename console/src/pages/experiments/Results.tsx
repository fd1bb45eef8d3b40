// An experiment's results (GET …/experiments/{id}/metrics): per variant its searches and
// shoppers, each followed rate as an interval chart, and in words how each variant compares
// with the control: the way it goes, whether the difference is clear at the 95 % level, or
// about how many more searches the estimate asks for.
import { useCallback, useEffect, useState } from 'react';
import { api, type ErrorBody, errorOf } from '../../api/client';
import { Loading } from '../../components/Loading';
import { TableScroll } from '../../components/TableScroll';
import { count } from '../analytics/format';
import { variantName } from './draft';
import { IntervalChart } from './IntervalChart';
import type { Experiment, Metrics, VariantMetrics } from './model';
import { type Metric, verdict } from './verdict';

type RateKey = 'ctr' | 'conversionRate' | 'noResultRate';

/** The rates, by the API's metric type: their key in the answer, title, meaning and words. */
const RATES: { type: string; key: RateKey; title: string; meaning: string; metric: Metric }[] = [
  {
    type: 'ctr',
    key: 'ctr',
    title: 'Click-through rate',
    meaning: 'Searches that led to a click',
    metric: 'clickThrough',
  },
  {
    type: 'conversion-rate',
    key: 'conversionRate',
    title: 'Conversion rate',
    meaning: 'Searches that led to a purchase',
    metric: 'conversion',
  },
  {
    type: 'no-result-rate',
    key: 'noResultRate',
    title: 'No results',
    meaning: 'Searches that found nothing',
    metric: 'noResult',
  },
];

/** The searches the estimate still asks for, in the two variants together. */
function moreSearches(
  needed: number | null,
  control: VariantMetrics,
  variant: VariantMetrics,
): number | null {
  if (needed === null) return null;
  return Math.max(0, needed - control.searches) + Math.max(0, needed - variant.searches);
}

export function Results({ app, experiment }: { app: string; experiment: Experiment }) {
  const [metrics, setMetrics] = useState<Metrics>();
  const [error, setError] = useState<ErrorBody>();
  const [asking, setAsking] = useState(false);
  const ask = useCallback(async () => {
    setAsking(true);
    const { data, error } = await api.GET('/api/apps/{app}/experiments/{id}/metrics', {
      params: { path: { app, id: experiment.id } },
    });
    setAsking(false);
    setMetrics(data);
    setError(data ? undefined : errorOf(error));
  }, [app, experiment.id]);
  useEffect(() => {
    ask();
  }, [ask]);

  const followed = RATES.filter((r) => experiment.metrics.some((m) => m.type === r.type));
  const control = metrics?.variants.find((v) => v.control) ?? metrics?.variants[0];
  const nameOf = (v: VariantMetrics) => variantName(experiment.variants.find((e) => e.id === v.id) ?? v);
  return (
    <section aria-label={`Results of ${experiment.id}`}>
      <div className="analytics-table-head">
        <h3>Results</h3>
        <button type="button" onClick={ask} disabled={asking}>
          Count again
        </button>
      </div>
      <p className="hint">
        Counted are the searches that carried the shopper parameter, and the clicks and purchases the shop
        reported for them; new ones count within about 10 seconds.
      </p>
      {error && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
      {!error && !metrics && <Loading what="the results" />}
      {metrics && control && (
        <>
          <TableScroll label={`Searches of ${experiment.id}`}>
            <table>
              <caption className="visually-hidden">Searches and shoppers per variant</caption>
              <thead>
                <tr>
                  <th scope="col">Variant</th>
                  <th scope="col" className="numeric">
                    Searches
                  </th>
                  <th scope="col" className="numeric">
                    Shoppers
                  </th>
                </tr>
              </thead>
              <tbody>
                {metrics.variants.map((v) => (
                  <tr key={v.id}>
                    <td>{nameOf(v)}</td>
                    <td className="numeric">{count(v.searches)}</td>
                    <td className="numeric">{count(v.shoppers)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
          <div className="interval-charts">
            {followed.map((r) => (
              <IntervalChart
                key={r.key}
                title={r.title}
                meaning={r.meaning}
                rows={metrics.variants.map((v) => {
                  const rate = v[r.key];
                  return v.searches === 0
                    ? { name: nameOf(v), rate: null, low: null, high: null }
                    : { name: nameOf(v), rate: rate.value, low: rate.low, high: rate.high };
                })}
              />
            ))}
          </div>
          <h3>What the figures say</h3>
          <ul className="verdicts" aria-label={`What the figures of ${experiment.id} say`}>
            {metrics.variants
              .filter((v) => v !== control)
              .flatMap((v) =>
                followed.map((r) => {
                  const against = v.vsControl?.[r.key];
                  const counted = v.searches > 0 && control.searches > 0 && against !== undefined;
                  return (
                    <li key={`${v.id}/${r.key}`}>
                      {verdict({
                        metric: r.metric,
                        variant: nameOf(v),
                        control: nameOf(control),
                        difference: counted ? against.difference : null,
                        pValue: counted ? against.pValue : null,
                        clear: counted ? against.significant : false,
                        moreSearches: moreSearches(against?.sampleSize ?? null, control, v),
                      })}
                    </li>
                  );
                }),
              )}
          </ul>
          <p className="hint">
            A difference is clear when a two-proportion test gives p below 0.05: a difference this large would
            come about by chance less than once in 20 experiments. The number of searches still needed is an
            estimate for the difference seen so far.
          </p>
        </>
      )}
    </section>
  );
}
