// Side-by-side measurement: a path of searchdeck and its peer (a bare route, Redis, the
// database's own full-text search, a raw driver), measured in alternating rounds of one
// run, reported as the median ratio with its range, against a target marked met or missed.
import { median } from './lib.js';

/** One side's figures for one round. */
export interface Measure {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU µs of the server process per answered request, where a server process exists. */
  cpuPerRequest?: number;
  /** Resident memory of the server process in MiB, where a server process exists. */
  rssMiB?: number;
}

export interface Rounds {
  ours: Measure[];
  peer: Measure[];
}

/**
 * Runs `rounds` rounds, alternating which side goes first, so drift in the machine's load
 * falls on both sides alike.
 */
export async function alternate(
  rounds: number,
  ours: () => Promise<Measure>,
  peer: () => Promise<Measure>,
): Promise<Rounds> {
  const result: Rounds = { ours: [], peer: [] };
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      result.ours.push(await ours());
      result.peer.push(await peer());
    } else {
      result.peer.push(await peer());
      result.ours.push(await ours());
    }
  }
  return result;
}

/** A ratio over the rounds: its median and range. */
export interface Ratio {
  median: number;
  min: number;
  max: number;
}

/** Per-round ratio of a figure of ours to the peer's (e.g. throughput: ours.rps / peer.rps). */
export function ratioOf(rounds: Rounds, figure: (m: Measure) => number): Ratio {
  const ratios = rounds.ours.map((m, i) => figure(m) / figure(rounds.peer[i]!));
  return { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) };
}

/** The median of each figure over the rounds of one side. */
export function medianMeasure(measures: readonly Measure[]): Measure {
  const of = (f: (m: Measure) => number | undefined) => {
    const values = measures.map(f).filter((v): v is number => v !== undefined);
    return values.length ? median(values) : undefined;
  };
  return {
    rps: of((m) => m.rps)!,
    p50: of((m) => m.p50)!,
    p99: of((m) => m.p99)!,
    errors: measures.reduce((sum, m) => sum + m.errors, 0),
    cpuPerRequest: of((m) => m.cpuPerRequest),
    rssMiB: of((m) => m.rssMiB),
  };
}

/** One row of a comparison table. */
export interface ComparisonRow {
  scenario: string;
  /** `sqlite`, `postgres`, or a peer's name. */
  engine: string;
  measure: Measure;
  /** The peer this row is compared with, and the ratio (blank for a peer's own row). */
  peer?: string;
  ratio?: Ratio;
  /** What the target says, e.g. "≥ 0.85 of bare throughput". */
  target?: string;
  met?: boolean;
}

const fixed = (value: number | undefined, digits: number) =>
  value === undefined || Number.isNaN(value) ? '' : value.toFixed(digits);

export function formatRatio(ratio: Ratio | undefined): string {
  if (!ratio) return '';
  return `${fixed(ratio.median, 2)} (${fixed(ratio.min, 2)}–${fixed(ratio.max, 2)})`;
}

/** The markdown table every side-by-side scenario writes into docs/benchmarks.md. */
export function comparisonTable(rows: readonly ComparisonRow[]): string {
  const head =
    '| scenario | engine | req/s | p50 ms | p99 ms | errors | CPU µs/req | RSS MiB | peer | ratio (median, min–max) | target | met |\n' +
    '|---|---|---:|---:|---:|---:|---:|---:|---|---|---|---|';
  const lines = rows.map((r) =>
    [
      r.scenario,
      r.engine,
      fixed(r.measure.rps, 0),
      fixed(r.measure.p50, 1),
      fixed(r.measure.p99, 1),
      r.measure.errors,
      fixed(r.measure.cpuPerRequest, 1),
      fixed(r.measure.rssMiB, 0),
      r.peer ?? '',
      formatRatio(r.ratio),
      r.target ?? '',
      r.met === undefined ? '' : r.met ? 'met' : '**missed**',
    ].join(' | '),
  );
  return [head, ...lines.map((l) => `| ${l} |`)].join('\n');
}
