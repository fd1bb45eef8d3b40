// The statistics of an experiment's results, as pure functions of counts: a proportion's
// Wilson interval, the two-proportion z test of a variant against the control (with the
// unpooled interval of the difference), and the sample size that would find a difference.
// docs/experiments.md states the method and its assumptions.

/** The two-sided 95 % normal quantile, and the 80 %-power one. */
export const Z_95 = 1.959963984540054;
const Z_POWER_80 = 0.8416212335729143;
export const SIGNIFICANCE = 0.05;

export interface Interval {
  value: number;
  low: number;
  high: number;
}

/** A proportion and its 95 % Wilson score interval; no trials: 0 in [0, 1]. */
export function wilson(successes: number, trials: number, z = Z_95): Interval {
  if (trials <= 0) return { value: 0, low: 0, high: 1 };
  const p = successes / trials;
  const z2 = z * z;
  const denominator = 1 + z2 / trials;
  const centre = (p + z2 / (2 * trials)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / denominator;
  return { value: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

export interface Comparison {
  /** The variant's proportion minus the control's. */
  difference: number;
  low: number;
  high: number;
  pValue: number;
  significant: boolean;
  /** Trials per arm that would find this difference at 5 % with 80 % power; null when there is none. */
  sampleSize: number | null;
}

/**
 * The two-proportion z test of `variant` against `control` (pooled standard error under the
 * null hypothesis of equal proportions), two-sided, and the difference's 95 % Wald interval
 * (unpooled standard error).
 */
export function compare(
  control: { successes: number; trials: number },
  variant: { successes: number; trials: number },
): Comparison {
  const p1 = control.trials > 0 ? control.successes / control.trials : 0;
  const p2 = variant.trials > 0 ? variant.successes / variant.trials : 0;
  const difference = p2 - p1;
  const sampleSize = requiredSampleSize(p1, p2);
  if (control.trials <= 0 || variant.trials <= 0) {
    return { difference, low: -1, high: 1, pValue: 1, significant: false, sampleSize };
  }
  const pooled = (control.successes + variant.successes) / (control.trials + variant.trials);
  const pooledSe = Math.sqrt(pooled * (1 - pooled) * (1 / control.trials + 1 / variant.trials));
  const pValue = pooledSe === 0 ? 1 : 2 * (1 - normalCdf(Math.abs(difference) / pooledSe));
  const se = Math.sqrt((p1 * (1 - p1)) / control.trials + (p2 * (1 - p2)) / variant.trials);
  return {
    difference,
    low: Math.max(-1, difference - Z_95 * se),
    high: Math.min(1, difference + Z_95 * se),
    pValue,
    significant: pValue < SIGNIFICANCE,
    sampleSize,
  };
}

/**
 * Trials per arm for a two-sided two-proportion test at 5 % to find `p2` against `p1` with
 * 80 % power (the normal approximation); null when the proportions are equal.
 */
export function requiredSampleSize(p1: number, p2: number): number | null {
  const delta = Math.abs(p2 - p1);
  if (delta === 0) return null;
  const mean = (p1 + p2) / 2;
  const root =
    Z_95 * Math.sqrt(2 * mean * (1 - mean)) + Z_POWER_80 * Math.sqrt(p1 * (1 - p1) + p2 * (1 - p2));
  return Math.ceil((root * root) / (delta * delta));
}

/** The standard normal distribution function, from erf (Abramowitz and Stegun 7.1.26, |error| < 1.5e-7). */
export function normalCdf(x: number): number {
  return 0.5 * (1 + erf(x / Math.SQRT2));
}

function erf(x: number): number {
  const sign = x < 0 ? -1 : 1;
  const a = Math.abs(x);
  const t = 1 / (1 + 0.3275911 * a);
  const poly =
    t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  return sign * (1 - poly * Math.exp(-a * a));
}
