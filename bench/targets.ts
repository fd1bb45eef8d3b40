// What the evaluation, query and experiments scenarios share: the table of targets that are not a
// throughput ratio (latency added, rebuild, memory).

export interface TargetRow {
  figure: string;
  value: string;
  target: string;
  /** Undefined for a figure that is only stated. */
  met?: boolean;
}

export function targetTable(rows: readonly TargetRow[]): string {
  const head = '| figure | measured | target | met |\n|---|---|---|---|';
  const lines = rows.map(
    (r) =>
      `| ${r.figure} | ${r.value} | ${r.target} | ${r.met === undefined ? '' : r.met ? 'met' : '**missed**'} |`,
  );
  return [head, ...lines].join('\n');
}
