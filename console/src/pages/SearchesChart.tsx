// Searches over time of a typeahead instance: the logged searches per hour, drawn by uPlot
// (small, canvas-based). This module and uPlot load with the Typeahead page's chunk only.
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { api, type ErrorBody, errorOf } from '../api/client';
import type { components } from '../api/schema';

type Counts = components['schemas']['TypeaheadSearchCounts'];

const RANGES = [
  { hours: 24, name: 'last 24 hours' },
  { hours: 24 * 7, name: 'last 7 days' },
  { hours: 24 * 30, name: 'last 30 days' },
];

/** `YYYY-MM-DDTHH` (UTC) as seconds since the epoch, uPlot's time scale. */
const secondsOf = (hour: string) => Date.parse(`${hour}:00:00Z`) / 1000;

/** What the picture shows, in words: its accessible name. */
function summary(counts: Counts, range: string): string {
  const busiest = counts.hours.reduce((best, h) => (h.count > best.count ? h : best), { hour: '', count: 0 });
  const peak = busiest.count > 0 ? `; busiest hour ${busiest.hour}:00 UTC with ${busiest.count}` : '';
  return `Searches per hour, ${range}: ${counts.total.toLocaleString()} in all${peak}`;
}

export default function SearchesChart({ id }: { id: string }) {
  const [hours, setHours] = useState(24 * 7);
  const [counts, setCounts] = useState<Counts>();
  const [error, setError] = useState<ErrorBody>();
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    api
      .GET('/api/typeahead/instances/{id}/search-counts', { params: { path: { id }, query: { hours } } })
      .then(({ data, error }) => {
        setCounts(data);
        setError(data ? undefined : errorOf(error));
      });
  }, [id, hours]);

  useEffect(() => {
    const element = box.current;
    if (!element || !counts) return;
    const plot = new uPlot(
      {
        width: Math.max(element.clientWidth, 320),
        height: 220,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: { y: { range: (_u, _min, max) => [0, Math.max(max, 1)] } },
        axes: [{}, { label: 'searches' }],
        series: [{}, { label: 'Searches', stroke: '#0b57d0', fill: 'rgba(11, 87, 208, 0.15)', width: 2 }],
      },
      [counts.hours.map((h) => secondsOf(h.hour)), counts.hours.map((h) => h.count)],
      element,
    );
    const resize = () => plot.setSize({ width: Math.max(element.clientWidth, 320), height: 220 });
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      plot.destroy();
    };
  }, [counts]);

  const range = RANGES.find((r) => r.hours === hours)?.name ?? `${hours} hours`;
  return (
    <section className="card" aria-label={`Searches over time of ${id}`}>
      <h3>Searches over time</h3>
      <label className="compact">
        Range
        <select value={hours} onChange={(e) => setHours(Number(e.target.value))}>
          {RANGES.map((r) => (
            <option key={r.hours} value={r.hours}>
              {r.name}
            </option>
          ))}
        </select>
      </label>
      {error && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
      <div
        ref={box}
        className="chart"
        role="img"
        aria-label={counts ? summary(counts, range) : 'Loading searches'}
      />
      <p className="hint">
        Logged searches only (the shop's search logs and the query profiles' logging), hours in UTC.
      </p>
    </section>
  );
}
