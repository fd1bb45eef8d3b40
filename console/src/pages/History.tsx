// History: the change history (GET /api/history), filtered by object and by who in the URL.
// Each person is named one way (the first user is `admin`, however they made the change);
// a rule, rewrite, studio or cluster is named by its name, its id shown on hover.
import { useEffect, useState } from 'react';
import { api, type ErrorBody, errorOf } from '../api/client';
import type { components } from '../api/schema';
import { NO_PAGE, PagedTable, type PageInfo } from '../components/PagedTable';
import { setQuery, useLocation } from '../router';
import { ACTIONS, actorFilter, actorName, plural, typeLabel } from '../words';
import { titleOf } from './rules/shared';

type Event = components['schemas']['HistoryEvent'];

/**
 * The name of an event's object (from its content before or after the change): in full
 * (`Rule "Kettle banner"`) and as it replaces the id in the summary (`"Kettle banner"`).
 */
function nameOf(event: Event): { full: string; quoted?: string } | undefined {
  const colon = event.object.indexOf(':');
  const kind = event.object.slice(0, colon);
  const id = event.object.slice(colon + 1);
  const recorded = (event.after ?? event.before) as Record<string, unknown> | undefined;
  // A rule or rewrite is recorded with its staging and live contents; other objects as they are.
  const own = (recorded?.staging ?? recorded?.live ?? recorded) as Record<string, unknown> | undefined;
  const content: Record<string, unknown> | undefined = own && { ...own, type: recorded?.type ?? own.type };
  const name = typeof content?.name === 'string' && content.name !== '' ? content.name : undefined;
  switch (kind) {
    case 'rule':
      return name ? { full: `Rule "${name}"`, quoted: `"${name}"` } : undefined;
    case 'rewrite': {
      if (typeof content?.type !== 'string') return undefined;
      const title = titleOf(content as Parameters<typeof titleOf>[0]);
      return title
        ? { full: `${typeLabel(content.type)} rewrite "${title}"`, quoted: `"${title}"` }
        : { full: `${typeLabel(content.type)} rewrite` };
    }
    case 'studio':
      return { full: `Studio ${name ? `"${name}"` : id}` };
    case 'typeahead':
      return { full: `Typeahead ${name ? `"${name}"` : id}` };
    case 'search-cluster':
      return { full: `Search cluster ${id}` };
    case 'user':
      return { full: `User ${id}` };
    case 'link':
      return { full: `Link ${id}` };
    default:
      return undefined;
  }
}

/** The summary, the object's id in it given as its name. */
function summaryOf(event: Event, quoted: string | undefined): string {
  const id = event.object.slice(event.object.indexOf(':') + 1);
  return quoted && id ? event.summary.replace(id, quoted) : event.summary;
}

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
          Who
          <input
            defaultValue={actor.startsWith('user:') ? actor.slice('user:'.length) : actor}
            placeholder="a user, or client:name"
            aria-describedby="who-hint"
            onChange={(e) => setQuery({ actor: actorFilter(e.target.value), page: undefined })}
          />
          <span className="hint" id="who-hint">
            A user's name, or <code>client:</code> and an API client's name
          </span>
        </label>
      </form>
      {error && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
      <PagedTable
        caption="Changes"
        columns={['When', 'Who', 'What', 'Object', 'Summary']}
        items={events}
        page={page}
        empty={object || actor ? 'No change matches these filters.' : 'No change recorded yet.'}
        what="the history"
        count={(n) => plural(n, 'change')}
        row={(e) => {
          const name = nameOf(e);
          return (
            <tr key={e.id}>
              <td>{new Date(e.at).toLocaleString()}</td>
              <td>
                <span title={e.actor}>{actorName(e.actor)}</span>
              </td>
              <td>{ACTIONS[e.action] ?? e.action}</td>
              <td>{name ? <span title={e.object}>{name.full}</span> : e.object}</td>
              <td>{summaryOf(e, name?.quoted)}</td>
            </tr>
          );
        }}
      />
    </>
  );
}
