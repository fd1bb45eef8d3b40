// Typeahead: the instances, the included/excluded terms with their counts against the
// limits (4,000 custom, 1,000 top-searched, 5,000 served), the top-searched terms, and a
// preview of the suggestions as they are served, and a chart of searches over time.
import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import { api, type ErrorBody, errorOf, mayEdit, type Session } from '../api/client';
import type { components } from '../api/schema';
import { Loading } from '../components/Loading';
import { TableScroll } from '../components/TableScroll';
import { setQuery, useLocation } from '../router';
import { messagesInWords } from '../words';

type Terms = components['schemas']['TypeaheadTerms'];
type Instance = components['schemas']['TypeaheadInstance'];

const LIMITS = { custom: 4000, topSearched: 1000, served: 5000 };

// The chart library loads only when a chart is shown.
const SearchesChart = lazy(() => import('./SearchesChart'));

const lines = (text: string) =>
  text
    .split('\n')
    .map((t) => t.trim())
    .filter(Boolean);

export function TypeaheadPage({ session }: { session: Session }) {
  const { query } = useLocation();
  const [instances, setInstances] = useState<Instance[]>();
  const [error, setError] = useState<ErrorBody>();
  useEffect(() => {
    api.GET('/api/typeahead/instances').then(({ data, error }) => {
      if (data) setInstances(data);
      else setError(errorOf(error));
    });
  }, []);
  const id = query.get('instance') ?? instances?.[0]?.id;
  return (
    <>
      <h1>Typeahead</h1>
      {error && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
      {instances === undefined && !error ? (
        <Loading what="the typeahead instances" />
      ) : (
        <TableScroll label="Typeahead instances">
          <table>
            <caption className="visually-hidden">Typeahead instances</caption>
            <thead>
              <tr>
                <th scope="col">Instance</th>
                <th scope="col">Name</th>
                <th scope="col">Allowed origins</th>
                <th scope="col">Top-terms window (days)</th>
              </tr>
            </thead>
            <tbody>
              {instances?.map((i) => (
                <tr key={i.id} aria-selected={i.id === id}>
                  <td>
                    <button
                      type="button"
                      onClick={() => setQuery({ instance: i.id })}
                      aria-pressed={i.id === id}
                    >
                      {i.id}
                    </button>
                  </td>
                  <td>{i.name}</td>
                  <td>{i.allowedOrigins.join(', ') || '—'}</td>
                  <td>{i.topTermsWindowDays}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {instances?.length === 0 && <p role="status">No typeahead instance yet.</p>}
      {id && <InstanceTerms key={id} id={id} editable={mayEdit(session, 'typeahead', id)} />}
    </>
  );
}

function InstanceTerms({ id, editable }: { id: string; editable: boolean }) {
  const [terms, setTerms] = useState<Terms>();
  const [included, setIncluded] = useState('');
  const [excluded, setExcluded] = useState('');
  const [error, setError] = useState<ErrorBody>();
  const [status, setStatus] = useState<string>();

  const load = useCallback(async () => {
    const { data, error } = await api.GET('/api/typeahead/instances/{id}/terms', {
      params: { path: { id } },
    });
    if (!data) return setError(errorOf(error));
    setTerms(data);
    setIncluded(data.included.join('\n'));
    setExcluded(data.excluded.join('\n'));
  }, [id]);
  useEffect(() => {
    load();
  }, [load]);

  async function save() {
    const { data, error } = await api.PUT('/api/typeahead/instances/{id}/terms', {
      params: { path: { id } },
      body: { included: lines(included), excluded: lines(excluded) },
    });
    if (!data) {
      setStatus(undefined);
      return setError(errorOf(error));
    }
    setError(undefined);
    setTerms(data);
    setStatus('Terms saved');
  }

  const custom = lines(included).length + lines(excluded).length;
  // The terms' boxes are not shown empty while the terms are on the way.
  if (terms === undefined) {
    return (
      <section className="card" aria-label={`Terms of ${id}`}>
        <h2>Terms of {id}</h2>
        {error ? (
          <p className="error" role="alert">
            {error.message}
          </p>
        ) : (
          <Loading what="the terms" />
        )}
      </section>
    );
  }
  return (
    <section className="card" aria-label={`Terms of ${id}`}>
      <h2>Terms of {id}</h2>
      <p>
        Custom terms: {custom.toLocaleString()} / {LIMITS.custom.toLocaleString()} · top-searched:{' '}
        {terms?.counts.topSearched.toLocaleString() ?? '…'} / {LIMITS.topSearched.toLocaleString()} · served:{' '}
        {terms?.counts.served.toLocaleString() ?? '…'} / {LIMITS.served.toLocaleString()}
      </p>
      <div className="diff">
        <label>
          Included terms (one per line)
          <textarea
            rows={10}
            value={included}
            readOnly={!editable}
            onChange={(e) => setIncluded(e.target.value)}
          />
        </label>
        <label>
          Excluded terms (one per line)
          <textarea
            rows={10}
            value={excluded}
            readOnly={!editable}
            onChange={(e) => setExcluded(e.target.value)}
          />
        </label>
      </div>
      {error && (
        <p className="error" role="alert">
          {messagesInWords(error, { included: 'Included terms', excluded: 'Excluded terms' })}
        </p>
      )}
      {status && <p role="status">{status}</p>}
      {editable && (
        <button type="button" className="primary" onClick={save} disabled={custom > LIMITS.custom}>
          Save terms
        </button>
      )}
      <Preview id={id} version={terms} />
      <Suspense fallback={<Loading what="the chart" />}>
        <SearchesChart id={id} />
      </Suspense>
      <h3>Top-searched terms</h3>
      <TableScroll label={`Top-searched terms of ${id}`}>
        <table>
          <caption className="visually-hidden">Top-searched terms of {id}</caption>
          <thead>
            <tr>
              <th scope="col">Term</th>
              <th scope="col">Searches</th>
            </tr>
          </thead>
          <tbody>
            {terms?.topSearched.slice(0, 50).map((t) => (
              <tr key={t.term}>
                <td>{t.term}</td>
                <td>{t.count.toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      {terms?.topSearched.length === 0 && <p>No searches reported yet.</p>}
    </section>
  );
}

function Preview({ id, version }: { id: string; version: unknown }) {
  const [prefix, setPrefix] = useState('');
  const [suggestions, setSuggestions] = useState<string[]>([]);
  useEffect(() => {
    // Asked again whenever the terms were saved (version), so the preview shows them.
    if (prefix === '' || version === undefined) return setSuggestions([]);
    let current = true;
    api
      .GET('/api/typeahead/instances/{id}/suggestions', {
        params: { path: { id }, query: { prefix, limit: 10 } },
      })
      .then(({ data }) => {
        if (current && data) setSuggestions(data as string[]);
      });
    return () => {
      current = false;
    };
  }, [id, prefix, version]);
  return (
    <div className="card">
      <label>
        Preview suggestions
        <input
          type="search"
          value={prefix}
          onChange={(e) => setPrefix(e.target.value)}
          placeholder="type a prefix"
        />
      </label>
      <ul aria-label="Suggestions" aria-live="polite">
        {suggestions.map((s) => (
          <li key={s}>{s}</li>
        ))}
      </ul>
    </div>
  );
}
