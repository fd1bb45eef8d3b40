// Which variant of an experiment a shopper gets: a pure function of the value of the
// experiment's uniqueIdParameter and the experiment's id (so the same shopper gets the same
// variant on every node, every time), in proportion to the variants' weights.
import { createHash } from 'node:crypto';
import type { Policy } from './schemas.js';
import { toStoredExperiment } from './service.js';
import type { ExperimentTable } from './tables.js';

/** A variant as the query path applies it. */
export interface ServedVariant {
  readonly id: string;
  readonly studio: string | undefined;
  readonly rewrites: boolean;
  readonly params: ReadonlyArray<{ key: string; value: string; policy: Policy }>;
}

/** An experiment as a node serves it: its variants and where each one's share of [0, 1) ends. */
export interface ServedExperiment {
  readonly id: string;
  readonly uniqueIdParameter: string;
  readonly enabled: boolean;
  /** When it starts and ends (epoch ms), read once as the node loads it. */
  readonly startMs: number;
  readonly endMs: number;
  readonly variants: readonly ServedVariant[];
  /** The upper end of each variant's share of [0, 1), in order; the last is 1. */
  readonly bounds: readonly number[];
}

export function servedExperiment(row: ExperimentTable): ServedExperiment {
  const stored = toStoredExperiment(row);
  const total = stored.variants.reduce((sum, variant) => sum + variant.weight, 0);
  let sum = 0;
  const bounds = stored.variants.map((variant, i) => {
    sum += variant.weight;
    return i === stored.variants.length - 1 ? 1 : sum / total;
  });
  return {
    id: stored.id,
    uniqueIdParameter: stored.uniqueIdParameter,
    enabled: stored.enabled,
    startMs:
      stored.startTimestamp === undefined ? Number.NEGATIVE_INFINITY : Date.parse(stored.startTimestamp),
    endMs: stored.endTimestamp === undefined ? Number.POSITIVE_INFINITY : Date.parse(stored.endTimestamp),
    variants: stored.variants.map((variant) => ({
      id: variant.id,
      studio: variant.studio,
      rewrites: variant.rewrites,
      params: variant.params,
    })),
    bounds,
  };
}

/** Whether the experiment assigns shoppers at `now` (epoch ms), as `isRunning` says of the stored one. */
export function runsAt(experiment: ServedExperiment, now: number): boolean {
  return experiment.enabled && now >= experiment.startMs && now < experiment.endMs;
}

// 48 bits of the digest: an exact integer in a double, so the fraction is uniform on [0, 1).
const SPAN = 2 ** 48;

/** Where a shopper falls in [0, 1) for an experiment: the SHA-256 of the value and the experiment's id. */
export function bucketOf(unit: string, experimentId: string): number {
  const digest = createHash('sha256').update(unit).update('\u0000').update(experimentId).digest();
  return digest.readUIntBE(0, 6) / SPAN;
}

/**
 * The variant of a shopper: the one whose share holds the shopper's bucket; without a value
 * (the request did not carry the parameter), the first, the control.
 */
export function assign(experiment: ServedExperiment, unit: string | undefined): ServedVariant {
  if (unit === undefined) return experiment.variants[0]!;
  const at = bucketOf(unit, experiment.id);
  const { bounds, variants } = experiment;
  for (let i = 0; i < bounds.length; i++) if (at < bounds[i]!) return variants[i]!;
  return variants[variants.length - 1]!;
}
