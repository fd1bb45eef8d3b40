import { AppError } from '../http/errors.js';
import type { CheckFailureCode, CheckStep, ConnectivityResult, NodeListResult } from './connectivity.js';

type Failed = Extract<ConnectivityResult | NodeListResult, { ok: false }>;

/**
 * A connectivity check that did not pass: 400 with the code of the failed step (or
 * `not-supported` for Kerberos) and `details.steps`, each step with its timing.
 */
export class ClusterCheckError extends AppError {
  readonly steps: CheckStep[];

  constructor(code: CheckFailureCode, message: string, steps: CheckStep[]) {
    super(code, message, { details: { steps } });
    this.steps = steps;
  }
}

/** The error for a check (or node listing) that did not pass; its message names the failed step. */
export function checkFailed(result: Failed): ClusterCheckError {
  const failed = result.steps.find((step) => !step.ok);
  const message = failed ? `check step ${failed.step} failed: ${result.message}` : result.message;
  return new ClusterCheckError(result.code, message, result.steps);
}
