import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parser } from '@prometheus-io/lezer-promql';
import { adminAuth, build } from '../helpers/app.js';

/** Metrics announced for areas being built, which the dashboard shows before they exist. */
const ANNOUNCED: Record<string, 'counter' | 'gauge' | 'histogram'> = {
  searchdeck_evaluations_total: 'counter',
  searchdeck_evaluation_duration_seconds: 'histogram',
};

interface Target {
  expr: string;
}
interface Panel {
  title: string;
  type: string;
  targets?: Target[];
}
interface Dashboard {
  panels: Panel[];
  templating: { list: Array<{ name: string; query: { query: string } }> };
}

const dashboard = JSON.parse(
  readFileSync(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8'),
) as Dashboard;

/** The series names a metric of this type shows in the exposition. */
function seriesOf(name: string, type: string): string[] {
  if (type === 'histogram') return [`${name}_bucket`, `${name}_sum`, `${name}_count`];
  if (type === 'summary') return [name, `${name}_sum`, `${name}_count`];
  return [name];
}

interface Selector {
  metric: string;
  labels: string[];
}

/** The vector selectors of a query (PromQL parsed by Prometheus's own grammar); throws on a syntax error. */
function selectorsOf(expr: string): Selector[] {
  // Grafana fills its interval variable in before Prometheus sees the query.
  const promql = expr.replaceAll('$__rate_interval', '5m');
  const selectors: Selector[] = [];
  parser.parse(promql).iterate({
    enter(node) {
      if (node.type.isError) throw new Error(`syntax error at ${node.from} in ${expr}`);
      if (node.name !== 'VectorSelector') return;
      const metric = node.node.getChild('Identifier');
      const matchers = node.node.getChild('LabelMatchers');
      const labels =
        matchers?.getChildren('UnquotedLabelMatcher').map((matcher) => {
          const name = matcher.getChild('LabelName')!;
          return promql.slice(name.from, name.to);
        }) ?? [];
      if (metric) selectors.push({ metric: promql.slice(metric.from, metric.to), labels });
    },
  });
  return selectors;
}

const queries = dashboard.panels.flatMap((panel) =>
  (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr })),
);

describe('the Grafana dashboard in docs/', () => {
  test('has panels whose queries are valid PromQL filtered by the job and node variables', () => {
    assert.ok(queries.length >= 20);
    for (const { panel, expr } of queries) {
      const selectors = selectorsOf(expr);
      assert.ok(selectors.length > 0, `${panel}: ${expr}`);
      for (const { metric, labels } of selectors) {
        assert.ok(labels.includes('job') && labels.includes('instance'), `${panel}: ${metric} unfiltered`);
      }
    }
  });

  test('queries only metrics the app exposes or that are announced for areas being built', async (t) => {
    const { app } = await build(t, 'sqlite');
    const response = await app.inject({ url: '/metrics', headers: { authorization: adminAuth } });
    assert.equal(response.statusCode, 200);
    const known = new Set<string>();
    for (const [, name, type] of response.body.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
      for (const series of seriesOf(name!, type!)) known.add(series);
    }
    for (const [name, type] of Object.entries(ANNOUNCED)) {
      for (const series of seriesOf(name, type)) known.add(series);
    }
    const variables = dashboard.templating.list.map((variable) => ({
      panel: `variable ${variable.name}`,
      expr: /^label_values\((.+), \w+\)$/.exec(variable.query.query)?.[1] ?? '',
    }));
    const used = [...queries, ...variables].flatMap(({ panel, expr }) =>
      selectorsOf(expr).map(({ metric }) => ({ panel, metric })),
    );
    const unknown = used.filter(({ metric }) => !known.has(metric));
    assert.deepEqual(unknown, [], 'metrics the app does not expose');
    // Every area's metrics are on the dashboard.
    const shown = new Set(used.map(({ metric }) => metric.replace(/_(bucket|sum|count)$/, '')));
    for (const prefix of [
      'http',
      'typeahead',
      'rule',
      'cluster_check',
      'job',
      'db_pool',
      'webhook',
      'evaluation',
    ]) {
      assert.ok(
        [...shown].some((metric) => metric.startsWith(`searchdeck_${prefix}`)),
        `no panel shows searchdeck_${prefix}*`,
      );
    }
  });
});
