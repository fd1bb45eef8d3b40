import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, type Metric, Registry } from 'prom-client';

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];

/** One line of the exposition, as prom-client's registry reads it. */
interface ExposedValue {
  labels: Record<string, string | number>;
  value: number;
  metricName: string;
}

interface Series {
  readonly labels: { method: string; route: string; status: number };
  /** Observations per bucket (not cumulative), the last slot for above every bound. */
  readonly counts: Float64Array;
  sum: number;
}

/**
 * The request-duration histogram, in the format prom-client's registry exposes. prom-client's
 * own Histogram hashes the label object and validates it on every observation, which cost
 * a few percent of a typeahead request; here a request costs three map look-ups and an add.
 */
class RequestDurations {
  readonly name = 'searchdeck_http_request_duration_seconds';
  readonly help = 'HTTP requests by route and status, with their latency';
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  #series = new Map<string, Map<string, Map<number, Series>>>();

  observe(route: string, method: string, status: number, seconds: number): void {
    let byMethod = this.#series.get(route);
    if (byMethod === undefined) {
      byMethod = new Map();
      this.#series.set(route, byMethod);
    }
    let byStatus = byMethod.get(method);
    if (byStatus === undefined) {
      byStatus = new Map();
      byMethod.set(method, byStatus);
    }
    let series = byStatus.get(status);
    if (series === undefined) {
      series = { labels: { method, route, status }, counts: new Float64Array(BUCKETS.length + 1), sum: 0 };
      byStatus.set(status, series);
    }
    let bucket = 0;
    while (bucket < BUCKETS.length && seconds > BUCKETS[bucket]!) bucket++;
    series.counts[bucket]!++;
    series.sum += seconds;
  }

  get(): { name: string; help: string; type: string; values: ExposedValue[]; aggregator: string } {
    const values: ExposedValue[] = [];
    for (const byMethod of this.#series.values()) {
      for (const byStatus of byMethod.values()) {
        for (const { labels, counts, sum } of byStatus.values()) {
          let cumulative = 0;
          BUCKETS.forEach((le, i) => {
            cumulative += counts[i]!;
            values.push({ labels: { ...labels, le }, value: cumulative, metricName: `${this.name}_bucket` });
          });
          cumulative += counts[BUCKETS.length]!;
          values.push({
            labels: { ...labels, le: '+Inf' },
            value: cumulative,
            metricName: `${this.name}_bucket`,
          });
          values.push({ labels, value: sum, metricName: `${this.name}_sum` });
          values.push({ labels, value: cumulative, metricName: `${this.name}_count` });
        }
      }
    }
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      values,
      aggregator: this.aggregator,
    } as never;
  }

  reset(): void {
    this.#series = new Map();
  }
}

/** A registry per app (tests build many apps in one process), with the HTTP request histogram. */
export function createMetrics(app: FastifyInstance): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new RequestDurations();
  // biome-ignore lint/suspicious/noExplicitAny: the registry accepts any object in its metric format
  registry.registerMetric(requests as any);
  app.addHook('onResponse', (request, reply, done) => {
    requests.observe(
      request.routeOptions.url ?? 'unmatched',
      request.method,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
  return registry;
}

/**
 * Counts a request answered outside Fastify's hooks (the typeahead fast path) in the same
 * histogram as every other request.
 */
export function requestObserver(
  registry: Registry,
): (route: string, method: string, status: number, seconds: number) => void {
  const durations = registry.getSingleMetric('searchdeck_http_request_duration_seconds') as unknown as
    | RequestDurations
    | undefined;
  if (durations === undefined) throw new Error('the request histogram is not registered');
  return (route, method, status, seconds) => durations.observe(route, method, status, seconds);
}

/**
 * The metric of that name in the registry, created by `create` the first time it is asked
 * for: parts built more than once per app (an area mounted under two prefixes, a helper
 * shared by several jobs) share one instrument instead of failing to register a second.
 */
export function registered<M extends Metric>(registry: Registry, name: string, create: () => M): M {
  return (registry.getSingleMetric(name) as M | undefined) ?? create();
}
