import { Counter, Histogram, type Registry } from 'prom-client';

/** The query endpoint's series: requests per profile, Solr latency, node failures, rules fired. */
export class QueryMetrics {
  readonly requests: Counter<'profile' | 'outcome'>;
  readonly solrSeconds: Histogram<'profile'>;
  readonly nodeFailures: Counter<'cluster' | 'node' | 'kind'>;
  readonly rulesFired: Counter<'profile'>;

  constructor(registry: Registry) {
    this.requests = new Counter({
      name: 'searchdeck_query_requests_total',
      help: 'Queries through the query endpoint, by profile (app/id) and outcome (ok, solr-failed, solr-timeout, stopped)',
      labelNames: ['profile', 'outcome'],
      registers: [registry],
    });
    this.solrSeconds = new Histogram({
      name: 'searchdeck_query_solr_duration_seconds',
      help: 'Time of the Solr requests of the query endpoint (retries included), by profile',
      labelNames: ['profile'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    });
    this.nodeFailures = new Counter({
      name: 'searchdeck_query_node_failures_total',
      help: 'Solr requests of the query endpoint that failed on a node, by cluster, node and kind (timeout, unreachable, refused)',
      labelNames: ['cluster', 'node', 'kind'],
      registers: [registry],
    });
    this.rulesFired = new Counter({
      name: 'searchdeck_query_rules_fired_total',
      help: 'Rules fired on queries through the query endpoint, by profile',
      labelNames: ['profile'],
      registers: [registry],
    });
  }
}
