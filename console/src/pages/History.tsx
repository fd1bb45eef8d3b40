// History: the change history (GET /api/history), filtered by object, actor and action in the URL.
import { useEffect, useState } from 'react';
import { api, type ErrorBody, errorOf } from '../api/client';
import type { components } from '../api/schema';
import { NO_PAGE, PagedTable, type PageInfo } from '../components/PagedTable';
import { setQuery, useLocation } from '../router';
import { plural } from '../words';

type Event = components['schemas']['HistoryEvent'];

export function HistoryPage() {
  const { query } = useLocation();
  const [events, setEvents] = useState<Event[]>();
  const [page, setPage] = useState<PageInfo>(NO_PAGE);
  const [error, setError] = useState<ErrorBody>();
  const object = query.get('object') ?? '';
  const actor = query.get('actor') ?? '';
  const number = Number(query.get('page') ?? 0);
  useEffect(() => {
    api
      .GET('/api/history', {
        params: {
          query: { ...(object ? { object } : {}), ...(actor ? { actor } : {}), page: number, size: 25 },
        },
      })
      .then(({ data, error }) => {
        if (data) {
          setEvents(data.content);
          setPage(data.page);
          setError(undefined);
        } else setError(errorOf(error));
      });
  }, [object, actor, number]);
  return (
    <>
      <h1>History</h1>
      <form className="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Object
          <input
            defaultValue={object}
            placeholder="studio:shop"
            onChange={(e) => setQuery({ object: e.target.value, page: undefined })}
          />
        </label>
        <label>
          Actor
          <input
            defaultValue={actor}
            onChange={(e) => setQuery({ actor: e.target.value, page: undefined })}
          />
        </label>
      </form>
      {error && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
      <PagedTable
        caption="Changes"
        columns={['When', 'Who', 'Action', 'Object', 'Summary']}
        items={events}
        page={page}
        empty={object || actor ? 'No change matches these filters.' : 'No change recorded yet.'}
        what="the history"
        count={(n) => plural(n, 'change')}
        row={(e) => (
          <tr key={e.id}>
            <td>{new Date(e.at).toLocaleString()}</td>
            <td>{e.actor}</td>
            <td>{e.action}</td>
            <td>{e.object}</td>
            <td>{e.summary}</td>
          </tr>
        )}
      />
    </>
  );
}
