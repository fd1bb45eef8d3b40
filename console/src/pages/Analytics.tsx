// Analytics of a query profile, for the merchandiser: what shoppers searched, what they found,
// clicked and bought, over a chosen range of days. The rates over time are drawn (uPlot), the
// tables (top searches, searches without results or clicks, rules, products) can be widened
// and downloaded as CSV. The app, profile, range and interval are in the URL, so a view can be
// shared. This page and its chart library load only when it is opened.
import { DatePickerInput } from '@mantine/dates';
import dayjs from 'dayjs';
import { type ReactNode, useEffect, useMemo, useState } from 'react';
import { api, type ErrorBody, errorOf } from '../api/client';
import type { paths } from '../api/schema';
import { Loading } from '../components/Loading';
import { TableScroll } from '../components/TableScroll';
import { setQuery, useLocation } from '../router';
import { csvOf, download } from './analytics/csv';
import { count, percent, position } from './analytics/format';
import { RatesChart } from './analytics/RatesChart';
import './analytics/analytics.css';

/** What a GET of the Analytics API answers with 200. */
type Answer<P extends keyof paths> = paths[P] extends {
  get: { responses: { 200: { content: { 'application/json': infer J } } } };
}
  ? J
  : never;
const BASE = '/api/apps/{app}/analytics/{profile}';
type Rate = Answer<`${typeof BASE}/rates`>['dates'][number];

const DAY = 'YYYY-MM-DD';
/** The range shown when the URL names none: the last 7 days, today included (UTC days). */
const defaultRange = () => ({ from: dayjs().subtract(6, 'day').format(DAY), to: dayjs().format(DAY) });

export default function AnalyticsPage() {
  const { query } = useLocation();
  const app = query.get('app') ?? '';
  const profile = query.get('profile') ?? '';
  const fallback = defaultRange();
  const from = query.get('from') ?? fallback.from;
  const to = query.get('to') ?? fallback.to;
  const interval = query.get('interval') === 'hour' ? 'hour' : 'day';
  const [apps, setApps] = useState<string[]>([]);
  const [profiles, setProfiles] = useState<string[]>();

  useEffect(() => {
    api.GET('/api/apps').then(({ data }) => setApps(data?.map((known) => known.id) ?? []));
  }, []);
  useEffect(() => {
    if (!app) return setProfiles(undefined);
    api.GET('/api/apps/{app}/query-profiles', { params: { path: { app } } }).then(({ data }) => {
      const ids = data?.map((p) => p.id) ?? [];
      setProfiles(ids);
      // One profile only: it is the one to show.
      if (!profile && ids.length === 1) setQuery({ profile: ids[0] });
    });
  }, [app, profile]);

  return (
    <>
      <h1>Analytics</h1>
      <p className="lead">
        What shoppers searched for on the shop, what they found, clicked and bought. Counted are the shop's
        searches (made with a search-only key); searches tried here in the console are not.
      </p>
      <form
        className="filters analytics-choice"
        aria-label="What to show"
        onSubmit={(event) => {
          event.preventDefault();
          const value = String(new FormData(event.currentTarget).get('app') ?? '').trim();
          setQuery({ app: value, profile: undefined });
        }}
      >
        <label>
          App
          <input name="app" defaultValue={app} placeholder="shop" key={app} list="analytics-apps" />
        </label>
        <datalist id="analytics-apps">
          {apps.map((known) => (
            <option key={known} value={known} />
          ))}
        </datalist>
        <button type="submit">Show</button>
        {app && (
          <label>
            Query profile
            <select value={profile} onChange={(event) => setQuery({ profile: event.currentTarget.value })}>
              <option value="">choose one</option>
              {(profiles ?? []).map((id) => (
                <option key={id}>{id}</option>
              ))}
            </select>
          </label>
        )}
        <DatePickerInput
          type="range"
          label="Days (UTC)"
          className="analytics-dates"
          value={[from, to]}
          maxDate={dayjs().format(DAY)}
          allowSingleDateInRange
          valueFormat="D MMM YYYY"
          onChange={([start, end]) => {
            if (start && end) setQuery({ from: dayjs(start).format(DAY), to: dayjs(end).format(DAY) });
          }}
        />
        <label>
          Points
          <select
            value={interval}
            onChange={(event) =>
              setQuery({ interval: event.currentTarget.value === 'hour' ? 'hour' : undefined })
            }
          >
            <option value="day">one a day</option>
            <option value="hour">one an hour</option>
          </select>
        </label>
      </form>
      {!app && <p role="status">Name an app to see the analytics of its query profiles.</p>}
      {app && profiles?.length === 0 && <p role="status">The app {app} has no query profile yet.</p>}
      {app && profiles && profiles.length > 0 && !profile && (
        <p role="status">Choose a query profile: its searches are counted on their own.</p>
      )}
      {app && profile && (
        <ProfileAnalytics
          app={app}
          profile={profile}
          from={from}
          to={to}
          interval={interval}
          search={query.get('search') ?? ''}
        />
      )}
    </>
  );
}

interface Scope {
  app: string;
  profile: string;
  from: string;
  to: string;
}

function ProfileAnalytics({
  interval,
  search,
  ...scope
}: Scope & { interval: 'day' | 'hour'; search: string }) {
  const { app, profile, from, to } = scope;
  const [rates, setRates] = useState<Rate[]>();
  const [error, setError] = useState<ErrorBody>();
  useEffect(() => {
    setRates(undefined);
    api
      .GET('/api/apps/{app}/analytics/{profile}/rates', {
        params: { path: { app, profile }, query: { startDate: from, endDate: to, interval } },
      })
      .then(({ data, error }) => {
        setRates(data?.dates);
        setError(data ? undefined : errorOf(error));
      });
  }, [app, profile, from, to, interval]);
  const range = `${dayjs(from).format('D MMM YYYY')} to ${dayjs(to).format('D MMM YYYY')}`;
  return (
    <>
      {error && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
      {!error && rates === undefined && <Loading what="the analytics" />}
      {rates && <Overview rates={rates} range={range} />}
      {rates && <RatesChart rates={rates} interval={interval} range={range} />}
      <div className="analytics-tables">
        <TopSearches {...scope} />
        {search && <SearchDetails scope={scope} search={search} />}
        <NoResults {...scope} />
        <NoClicks {...scope} />
        <RulesTable {...scope} />
        <DocumentsTable {...scope} />
      </div>
    </>
  );
}

/** The whole range's figures: each day's rate weighs by its searches, which gives the range's rate exactly. */
function Overview({ rates, range }: { rates: Rate[]; range: string }) {
  const searches = rates.reduce((sum, r) => sum + r.searchCount, 0);
  const overall = (pick: (r: Rate) => number | null) =>
    searches === 0 ? null : rates.reduce((sum, r) => sum + (pick(r) ?? 0) * r.searchCount, 0) / searches;
  const figures: [string, string, string][] = [
    ['Searches', count(searches), 'searches made on the shop'],
    ['Click-through rate', percent(overall((r) => r.clickThroughRate)), 'of searches led to a click'],
    ['Conversion rate', percent(overall((r) => r.conversionRate)), 'of searches led to a purchase'],
    ['Add-to-cart rate', percent(overall((r) => r.addToCartRate)), 'of searches led to an add to cart'],
    ['No results', percent(overall((r) => r.noResultRate)), 'of searches found nothing'],
  ];
  return (
    <section className="analytics-overview" aria-label={`Overview, ${range}`}>
      {figures.map(([name, value, meaning]) => (
        <div className="figure card" key={name}>
          <span className="figure-name">{name}</span>
          <strong className="figure-value">{value}</strong>
          <span className="hint">{meaning}</span>
        </div>
      ))}
    </section>
  );
}

/** A column of a table: its heading, its cell, and its CSV header and value. */
interface Column<T> {
  heading: string;
  cell: (row: T) => ReactNode;
  csv: (row: T) => string | number | null;
  numeric?: boolean;
}

/** Fetches `limit` entries of one of the Analytics API's lists. */
type Fetch<T> = (limit: number) => Promise<{ rows?: T[]; error?: ErrorBody }>;

const PAGE = 10;
const MOST = 1000;

/** One of the lists: shown 10 at first, "Show more" widens it, "Download CSV" takes up to 1,000. */
function AnalyticsTable<T>({
  title,
  explanation,
  empty,
  file,
  columns,
  fetchRows,
  scope,
  wide = false,
}: {
  wide?: boolean;
  title: string;
  explanation: string;
  empty: string;
  file: string;
  columns: Column<T>[];
  fetchRows: Fetch<T>;
  scope: Scope;
}) {
  const [limit, setLimit] = useState(PAGE);
  const [rows, setRows] = useState<T[]>();
  const [error, setError] = useState<ErrorBody>();
  const key = `${scope.app}/${scope.profile}/${scope.from}/${scope.to}`;
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new scope starts from the first page
  useEffect(() => setLimit(PAGE), [key]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: fetchRows is rebuilt on each render; the scope decides
  useEffect(() => {
    let current = true;
    fetchRows(limit).then((answer) => {
      if (!current) return;
      setRows(answer.rows);
      setError(answer.error);
    });
    return () => {
      current = false;
    };
  }, [key, limit]);

  async function exportCsv() {
    const answer = await fetchRows(MOST);
    if (!answer.rows) return setError(answer.error);
    download(
      `${scope.profile}-${file}-${scope.from}-to-${scope.to}.csv`,
      csvOf(
        columns.map((c) => c.heading),
        answer.rows.map((row) => columns.map((c) => c.csv(row))),
      ),
    );
  }

  return (
    <section className={`card analytics-table${wide ? ' wide' : ''}`} aria-label={title}>
      <div className="analytics-table-head">
        <h2>{title}</h2>
        <button type="button" onClick={exportCsv} disabled={!rows || rows.length === 0}>
          Download CSV
        </button>
      </div>
      <p className="hint">{explanation}</p>
      {error && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
      {!error && rows === undefined && <Loading what={title.toLowerCase()} />}
      {rows?.length === 0 && <p role="status">{empty}</p>}
      {rows && rows.length > 0 && (
        <TableScroll label={title}>
          <table>
            <caption className="visually-hidden">{title}</caption>
            <thead>
              <tr>
                {columns.map((c) => (
                  <th key={c.heading} scope="col" className={c.numeric ? 'numeric' : undefined}>
                    {c.heading}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: the rows come ranked and are replaced whole
                <tr key={i}>
                  {columns.map((c) => (
                    <td key={c.heading} className={c.numeric ? 'numeric' : undefined}>
                      {c.cell(row)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {rows && rows.length === limit && limit < MOST && (
        <button type="button" onClick={() => setLimit(Math.min(limit * 5, MOST))}>
          Show more
        </button>
      )}
    </section>
  );
}

function query(scope: Scope, limit: number) {
  return {
    path: { app: scope.app, profile: scope.profile },
    query: { startDate: scope.from, endDate: scope.to, limit },
  };
}

function settled<T>(answer: { data?: T; error?: unknown }) {
  return answer.data ? { error: undefined } : { error: errorOf(answer.error) };
}

type TopSearch = Answer<`${typeof BASE}/searches`>['searches'][number];

/** A search string that opens its drill-down. */
function SearchLink({ search }: { search: string }) {
  return (
    <button
      type="button"
      className="link"
      aria-label={`${search}: its rules and products`}
      onClick={() => setQuery({ search })}
    >
      {search}
    </button>
  );
}

function TopSearches(scope: Scope) {
  const columns = useMemo<Column<TopSearch>[]>(
    () => [
      { heading: 'Search', cell: (r) => <SearchLink search={r.search} />, csv: (r) => r.search },
      { heading: 'Searches', cell: (r) => count(r.count), csv: (r) => r.count, numeric: true },
      { heading: 'Results (latest)', cell: (r) => count(r.nbHits), csv: (r) => r.nbHits, numeric: true },
      { heading: 'Clicks', cell: (r) => count(r.clickCount), csv: (r) => r.clickCount, numeric: true },
      {
        heading: 'Click-through rate',
        cell: (r) => percent(r.clickThroughRate),
        csv: (r) => r.clickThroughRate,
        numeric: true,
      },
      {
        heading: 'Average click position',
        cell: (r) => position(r.averageClickPosition),
        csv: (r) => r.averageClickPosition,
        numeric: true,
      },
      {
        heading: 'Purchases',
        cell: (r) => count(r.conversionCount),
        csv: (r) => r.conversionCount,
        numeric: true,
      },
      {
        heading: 'Conversion rate',
        cell: (r) => percent(r.conversionRate),
        csv: (r) => r.conversionRate,
        numeric: true,
      },
      {
        heading: 'Add-to-cart rate',
        cell: (r) => percent(r.addToCartRate),
        csv: (r) => r.addToCartRate,
        numeric: true,
      },
    ],
    [],
  );
  return (
    <AnalyticsTable
      wide
      title="Top searches"
      explanation="The searches made most often, with what shoppers did next. Searches are compared as typeahead compares them (case and accents aside)."
      empty="No search was counted in these days."
      file="top-searches"
      columns={columns}
      scope={scope}
      fetchRows={async (limit) => {
        const answer = await api.GET('/api/apps/{app}/analytics/{profile}/searches', {
          params: query(scope, limit),
        });
        return { rows: answer.data?.searches, ...settled(answer) };
      }}
    />
  );
}

type NoResult = Answer<`${typeof BASE}/searches/no-results`>['searches'][number];

function NoResults(scope: Scope) {
  const columns = useMemo<Column<NoResult>[]>(
    () => [
      { heading: 'Search', cell: (r) => r.search, csv: (r) => r.search },
      { heading: 'Searches', cell: (r) => count(r.count), csv: (r) => r.count, numeric: true },
    ],
    [],
  );
  return (
    <AnalyticsTable
      title="Searches without results"
      explanation="Their latest search found nothing: candidates for a synonym, a misspelling or a redirect."
      empty="Every search found something."
      file="no-results"
      columns={columns}
      scope={scope}
      fetchRows={async (limit) => {
        const answer = await api.GET('/api/apps/{app}/analytics/{profile}/searches/no-results', {
          params: query(scope, limit),
        });
        return { rows: answer.data?.searches, ...settled(answer) };
      }}
    />
  );
}

type NoClick = Answer<`${typeof BASE}/searches/no-clicks`>['searches'][number];

function NoClicks(scope: Scope) {
  const columns = useMemo<Column<NoClick>[]>(
    () => [
      { heading: 'Search', cell: (r) => <SearchLink search={r.search} />, csv: (r) => r.search },
      { heading: 'Searches', cell: (r) => count(r.count), csv: (r) => r.count, numeric: true },
      { heading: 'Results (latest)', cell: (r) => count(r.nbHits), csv: (r) => r.nbHits, numeric: true },
    ],
    [],
  );
  return (
    <AnalyticsTable
      title="Searches without clicks"
      explanation="Shoppers found products and clicked none of them: candidates for a pin or a boost."
      empty="Every search with results had a click."
      file="no-clicks"
      columns={columns}
      scope={scope}
      fetchRows={async (limit) => {
        const answer = await api.GET('/api/apps/{app}/analytics/{profile}/searches/no-clicks', {
          params: query(scope, limit),
        });
        return { rows: answer.data?.searches, ...settled(answer) };
      }}
    />
  );
}

type RuleRow = Answer<`${typeof BASE}/rules`>['rules'][number];
type Details = Answer<`${typeof BASE}/searches/details`>;

/** One search's drill-down: the rules that fired on it and the products clicked after it. */
function SearchDetails({ scope, search }: { scope: Scope; search: string }) {
  const [details, setDetails] = useState<Details>();
  const [error, setError] = useState<ErrorBody>();
  useEffect(() => {
    setDetails(undefined);
    api
      .GET('/api/apps/{app}/analytics/{profile}/searches/details', {
        params: {
          path: { app: scope.app, profile: scope.profile },
          query: { search, startDate: scope.from, endDate: scope.to, limit: 50 },
        },
      })
      .then(({ data, error }) => {
        setDetails(data);
        setError(data ? undefined : errorOf(error));
      });
  }, [scope.app, scope.profile, scope.from, scope.to, search]);
  const title = `Search “${search}”`;
  return (
    <section className="card analytics-table wide" aria-label={title}>
      <div className="analytics-table-head">
        <h2>{title}</h2>
        <button type="button" onClick={() => setQuery({ search: undefined })}>
          Close
        </button>
      </div>
      <p className="hint">
        What happened after this search in these days: the rules that acted on it and the products shoppers
        clicked. Read from the shop's recorded searches, which are kept for 30 days.
      </p>
      {error && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
      {!error && !details && <Loading what={`the search “${search}”`} />}
      {details && (
        <>
          <p role="status">{`${count(details.count)} ${details.count === 1 ? 'search' : 'searches'} in these days.`}</p>
          <div className="analytics-details">
            <div>
              <h3>Rules that acted on it</h3>
              {details.rules.length === 0 ? (
                <p>No rule acted on it.</p>
              ) : (
                <SimpleTable
                  label={`Rules of the search “${search}”`}
                  headings={['Rule', 'Searches it acted on', 'Click-through rate', 'Conversion rate']}
                  rows={details.rules.map((r) => [
                    r.name ?? `A removed rule (${r.id})`,
                    count(r.firedCount),
                    percent(r.clickThroughRate),
                    percent(r.conversionRate),
                  ])}
                />
              )}
            </div>
            <div>
              <h3>Products clicked after it</h3>
              {details.documents.length === 0 ? (
                <p>No product was clicked after it.</p>
              ) : (
                <SimpleTable
                  label={`Products clicked after the search “${search}”`}
                  headings={['Product', 'Clicks', 'Purchases', 'Adds to cart']}
                  rows={details.documents.map((d) => [
                    d.docId,
                    count(d.clickCount),
                    count(d.conversionCount),
                    count(d.addToCartCount),
                  ])}
                />
              )}
            </div>
          </div>
        </>
      )}
    </section>
  );
}

/** A small table of text cells, the first column a name and the others figures. */
function SimpleTable({ label, headings, rows }: { label: string; headings: string[]; rows: string[][] }) {
  return (
    <TableScroll label={label}>
      <table>
        <caption className="visually-hidden">{label}</caption>
        <thead>
          <tr>
            {headings.map((h, i) => (
              <th key={h} scope="col" className={i > 0 ? 'numeric' : undefined}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row[0]}>
              {row.map((cell, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: the columns are fixed
                <td key={i} className={i > 0 ? 'numeric' : undefined}>
                  {cell}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

function RulesTable(scope: Scope) {
  const columns = useMemo<Column<RuleRow>[]>(
    () => [
      {
        heading: 'Rule',
        cell: (r) => <span title={r.id}>{r.name ?? `A removed rule (${r.id})`}</span>,
        csv: (r) => r.name ?? r.id,
      },
      {
        heading: 'Searches it acted on',
        cell: (r) => count(r.firedCount),
        csv: (r) => r.firedCount,
        numeric: true,
      },
      {
        heading: 'Click-through rate',
        cell: (r) => percent(r.clickThroughRate),
        csv: (r) => r.clickThroughRate,
        numeric: true,
      },
      {
        heading: 'Conversion rate',
        cell: (r) => percent(r.conversionRate),
        csv: (r) => r.conversionRate,
        numeric: true,
      },
    ],
    [],
  );
  return (
    <AnalyticsTable
      title="Rules"
      explanation="The rules that acted on the shop's searches, and how those searches went."
      empty="No rule acted on a counted search in these days."
      file="rules"
      columns={columns}
      scope={scope}
      fetchRows={async (limit) => {
        const answer = await api.GET('/api/apps/{app}/analytics/{profile}/rules', {
          params: query(scope, limit),
        });
        return { rows: answer.data?.rules, ...settled(answer) };
      }}
    />
  );
}

type DocumentRow = Answer<`${typeof BASE}/documents`>['documents'][number];

function DocumentsTable(scope: Scope) {
  const columns = useMemo<Column<DocumentRow>[]>(
    () => [
      { heading: 'Product', cell: (r) => r.docId, csv: (r) => r.docId },
      { heading: 'Clicks', cell: (r) => count(r.clickCount), csv: (r) => r.clickCount, numeric: true },
      {
        heading: 'Purchases',
        cell: (r) => count(r.conversionCount),
        csv: (r) => r.conversionCount,
        numeric: true,
      },
      {
        heading: 'Adds to cart',
        cell: (r) => count(r.addToCartCount),
        csv: (r) => r.addToCartCount,
        numeric: true,
      },
    ],
    [],
  );
  return (
    <AnalyticsTable
      title="Products clicked"
      explanation="The products shoppers clicked from the search results, the most clicked first."
      empty="No product was clicked from a counted search in these days."
      file="products"
      columns={columns}
      scope={scope}
      fetchRows={async (limit) => {
        const answer = await api.GET('/api/apps/{app}/analytics/{profile}/documents', {
          params: query(scope, limit),
        });
        return { rows: answer.data?.documents, ...settled(answer) };
      }}
    />
  );
}
