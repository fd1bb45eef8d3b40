// Evaluation's metrics, kept as plain numbers on the hot path and turned into Prometheus
// series only when scraped (as the request histogram in src/http/metrics.ts does).
import type { Registry } from 'prom-client';

const BUCKETS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1];

export const OUTCOMES = ['fired', 'none'] as const;
export type Outcome = (typeof OUTCOMES)[number];

interface ExposedValue {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

export class EvaluationMetrics {
  readonly #outcomes: Record<Outcome, number> = { fired: 0, none: 0 };
  readonly #counts = new Float64Array(BUCKETS.length + 1);
  #sum = 0;

  constructor(registry: Registry) {
    const outcomes = this.#outcomes;
    const counts = this.#counts;
    const sum = () => this.#sum;
    // Objects in the metric format prom-client's registry reads (see src/http/metrics.ts).
    const total = {
      name: 'searchdeck_evaluations_total',
      help: 'Query evaluations of live or staging rules, by whether a rule fired',
      type: 'counter',
      aggregator: 'sum',
      get: () => ({
        name: 'searchdeck_evaluations_total',
        help: total.help,
        type: 'counter',
        aggregator: 'sum',
        values: OUTCOMES.map((outcome): ExposedValue => ({ labels: { outcome }, value: outcomes[outcome] })),
      }),
      reset: () => {},
    };
    const name = 'searchdeck_evaluation_duration_seconds';
    const duration = {
      name,
      help: 'Time to evaluate a query against a compiled studio',
      type: 'histogram',
      aggregator: 'sum',
      get: () => {
        const values: ExposedValue[] = [];
        let cumulative = 0;
        BUCKETS.forEach((le, i) => {
          cumulative += counts[i]!;
          values.push({ labels: { le }, value: cumulative, metricName: `${name}_bucket` });
        });
        cumulative += counts[BUCKETS.length]!;
        values.push({ labels: { le: '+Inf' }, value: cumulative, metricName: `${name}_bucket` });
        values.push({ labels: {}, value: sum(), metricName: `${name}_sum` });
        values.push({ labels: {}, value: cumulative, metricName: `${name}_count` });
        return { name, help: duration.help, type: 'histogram', aggregator: 'sum', values };
      },
      reset: () => {},
    };
    // biome-ignore lint/suspicious/noExplicitAny: the registry accepts any object in its metric format
    registry.registerMetric(total as any);
    // biome-ignore lint/suspicious/noExplicitAny: as above
    registry.registerMetric(duration as any);
  }

  /** One evaluation: an add to a counter, a bucket search over ten bounds, an add. */
  observe(outcome: Outcome, seconds: number): void {
    this.#outcomes[outcome]++;
    let bucket = 0;
    while (bucket < BUCKETS.length && seconds > BUCKETS[bucket]!) bucket++;
    this.#counts[bucket]!++;
    this.#sum += seconds;
  }
}
