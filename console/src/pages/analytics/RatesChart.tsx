// The rates over time, drawn by uPlot: the searches per day (or hour) as bars on the left
// scale, the click-through, conversion and no-result rates as lines on the right one (0–100 %).
// The picture's accessible name says what it shows in words; the table below it holds the
// figures for whoever cannot see it.
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { count, percent } from './format';

export interface RatePoint {
  date: string;
  searchCount: number;
  noResultRate: number | null;
  clickThroughRate: number | null;
  conversionRate: number | null;
}

/** `YYYY-MM-DD` or `YYYY-MM-DDTHH:00:00Z` (UTC) as seconds since the epoch, uPlot's time scale. */
const secondsOf = (date: string) => Date.parse(date.length === 10 ? `${date}T00:00:00Z` : date) / 1000;

const SERIES = [
  { label: 'Click-through rate', key: 'clickThroughRate', stroke: '#0b57d0' },
  { label: 'Conversion rate', key: 'conversionRate', stroke: '#137333' },
  { label: 'No results', key: 'noResultRate', stroke: '#b3261e' },
] as const;

function summary(rates: RatePoint[], range: string, interval: 'day' | 'hour'): string {
  const searches = rates.reduce((sum, r) => sum + r.searchCount, 0);
  const busiest = rates.reduce<RatePoint | undefined>(
    (best, r) => (best === undefined || r.searchCount > best.searchCount ? r : best),
    undefined,
  );
  const peak =
    busiest && busiest.searchCount > 0
      ? `; most on ${busiest.date} with ${count(busiest.searchCount)}, click-through ${percent(busiest.clickThroughRate)}`
      : '';
  return `Searches and rates per ${interval}, ${range}: ${count(searches)} searches${peak}`;
}

export function RatesChart({
  rates,
  interval,
  range,
}: {
  rates: RatePoint[];
  interval: 'day' | 'hour';
  range: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const width = () => Math.max(element.clientWidth, 280);
    const bars = uPlot.paths.bars?.({ size: [0.6, 40] });
    const xs = rates.map((r) => secondsOf(r.date));
    // Half a step of room on each side, so the first and the last bar are drawn whole.
    const half = interval === 'day' ? 43_200 : 1_800;
    // A day's point is labelled with its date alone, a label for at most every 64 px.
    const every = Math.max(1, Math.ceil(xs.length / Math.max(1, Math.floor(width() / 64))));
    const dayAxis = {
      splits: () => xs.filter((_x, i) => i % every === 0),
      values: (_u: uPlot, splits: number[]) =>
        splits.map((x) =>
          new Date(x * 1000).toLocaleDateString(undefined, {
            day: 'numeric',
            month: 'short',
            timeZone: 'UTC',
          }),
        ),
    };
    const plot = new uPlot(
      {
        width: width(),
        height: 260,
        cursor: { drag: { x: false, y: false } },
        scales: {
          x: { time: true, range: () => [(xs[0] ?? 0) - half, (xs.at(-1) ?? 0) + half] },
          searches: { range: (_u, _min, max) => [0, Math.max(max, 1)] },
          rate: { range: () => [0, 1] },
        },
        axes: [
          interval === 'day' ? dayAxis : {},
          { scale: 'searches', label: 'searches' },
          {
            scale: 'rate',
            side: 1,
            grid: { show: false },
            values: (_u, values) => values.map((v) => `${Math.round(v * 100)} %`),
          },
        ],
        series: [
          {},
          {
            label: 'Searches',
            scale: 'searches',
            fill: 'rgba(95, 99, 104, 0.25)',
            stroke: '#5f6368',
            paths: bars,
            value: (_u, v) => (v === null ? '–' : count(v)),
          },
          ...SERIES.map((s) => ({
            label: s.label,
            scale: 'rate',
            stroke: s.stroke,
            width: 2,
            spanGaps: false,
            value: (_u: uPlot, v: number | null) => percent(v),
          })),
        ],
      },
      [
        xs,
        rates.map((r) => r.searchCount),
        ...SERIES.map((s) => rates.map((r) => r[s.key])),
      ] as uPlot.AlignedData,
      element,
    );
    const resize = () => plot.setSize({ width: width(), height: 260 });
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      plot.destroy();
    };
  }, [rates, interval]);
  return (
    <section className="card" aria-label="Rates over time">
      <h2>Over time</h2>
      <div ref={box} className="chart" role="img" aria-label={summary(rates, range, interval)} />
      <p className="hint">
        Bars: searches per {interval} (left scale). Lines: the share of those searches that led to a click, to
        a purchase, or found nothing (right scale). {interval === 'hour' ? 'Hours' : 'Days'} are in UTC.
      </p>
    </section>
  );
}
