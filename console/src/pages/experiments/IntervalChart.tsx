// One rate of an experiment's variants as an interval chart: per variant a bar from the low to
// the high end of its 95 % interval, a mark at the rate itself, and a dashed line at the
// control's rate across every row, so an interval clear of that line stands out. Each row also
// says its figures in words, which is what a screen reader reads; the drawing is hidden from it.
import { percent } from '../analytics/format';

export interface IntervalRow {
  name: string;
  rate: number | null;
  low: number | null;
  high: number | null;
}

/** The scale's end: a round percentage above the highest end shown (at least 1 %). */
function scaleEnd(rows: IntervalRow[]): number {
  const highest = Math.max(0.01, ...rows.map((r) => r.high ?? r.rate ?? 0));
  const step = highest > 0.2 ? 0.1 : highest > 0.05 ? 0.05 : 0.01;
  return Math.min(1, Math.ceil(highest / step) * step);
}

const at = (value: number, end: number) => `${Math.min(100, (value / end) * 100)}%`;

/** The figures of a row in words: "12.5 % (9.1 % to 16.7 %)". */
export function intervalText(row: IntervalRow): string {
  if (row.rate === null) return 'no search counted yet';
  const range = row.low === null || row.high === null ? '' : ` (${percent(row.low)} to ${percent(row.high)})`;
  return `${percent(row.rate)}${range}`;
}

export function IntervalChart({
  title,
  meaning,
  rows,
}: {
  title: string;
  /** What the rate is, in a few words: "of searches led to a click". */
  meaning: string;
  /** The control first. */
  rows: IntervalRow[];
}) {
  const end = scaleEnd(rows);
  const control = rows[0]?.rate ?? null;
  return (
    <figure className="interval-chart">
      <figcaption>
        <strong>{title}</strong> <span className="hint">{meaning}, with its 95 % interval</span>
      </figcaption>
      <ul>
        {rows.map((row) => (
          <li key={row.name}>
            <span className="interval-name">{row.name}</span>
            <span className="interval-track" aria-hidden="true">
              {control !== null && <span className="interval-control" style={{ left: at(control, end) }} />}
              {row.low !== null && row.high !== null && (
                <span
                  className="interval-bar"
                  style={{
                    left: at(row.low, end),
                    width: `calc(${at(row.high, end)} - ${at(row.low, end)})`,
                  }}
                />
              )}
              {row.rate !== null && <span className="interval-rate" style={{ left: at(row.rate, end) }} />}
            </span>
            <span className="interval-figure">{intervalText(row)}</span>
          </li>
        ))}
      </ul>
      <div className="interval-scale hint" aria-hidden="true">
        <span className="interval-ends">
          <span>0 %</span>
          <span>{percent(end)}</span>
        </span>
      </div>
    </figure>
  );
}
