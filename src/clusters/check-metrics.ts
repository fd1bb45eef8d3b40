// Connectivity checks as metrics: each check by outcome, each step by outcome and time.
import { Counter, Histogram, type Registry } from 'prom-client';
import { registered } from '../http/metrics.js';
import type { CheckFailureCode, CheckStep } from './connectivity.js';

/** ok, or the code of the failed check (cluster-unreachable, not-a-solr-cluster, not-supported). */
export type CheckOutcome = 'ok' | CheckFailureCode;

/** Told of every connectivity check that ran, with the steps it went through. */
export type CheckRecorder = (outcome: CheckOutcome, steps: readonly CheckStep[]) => void;

const STEP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The recorder of the app's registry (the area is mounted twice; its metrics exist once). */
export function clusterCheckRecorder(registry: Registry): CheckRecorder {
  const registers = [registry];
  const checks = registered(
    registry,
    'searchdeck_cluster_checks_total',
    () =>
      new Counter({
        name: 'searchdeck_cluster_checks_total',
        help: 'Search-cluster connectivity checks run, by outcome (ok or the failure code)',
        labelNames: ['outcome'] as const,
        registers,
      }),
  );
  const steps = registered(
    registry,
    'searchdeck_cluster_check_steps_total',
    () =>
      new Counter({
        name: 'searchdeck_cluster_check_steps_total',
        help: 'Steps of the connectivity checks, by step and outcome (ok, failed)',
        labelNames: ['step', 'outcome'] as const,
        registers,
      }),
  );
  const durations = registered(
    registry,
    'searchdeck_cluster_check_step_duration_seconds',
    () =>
      new Histogram({
        name: 'searchdeck_cluster_check_step_duration_seconds',
        help: 'Time each step of the connectivity checks took, by step',
        labelNames: ['step'] as const,
        buckets: STEP_BUCKETS,
        registers,
      }),
  );
  return (outcome, ran) => {
    checks.inc({ outcome });
    for (const step of ran) {
      steps.inc({ step: step.step, outcome: step.ok ? 'ok' : 'failed' });
      durations.observe({ step: step.step }, step.ms / 1000);
    }
  };
}
