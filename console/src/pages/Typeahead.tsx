// Typeahead: the instances, the included/excluded terms with their counts against the
// limits (4,000 custom, 1,000 top-searched, 5,000 served), the top-searched terms, and a
// preview of the suggestions as they are served, and a chart of searches over time.
import { type FormEvent, lazy, Suspense, useCallback, useEffect, useState } from 'react';
import { api, type ErrorBody, errorOf, mayEdit, type Session } from '../api/client';
import type { components, paths } from '../api/schema';
import { useConfirm } from '../components/Confirm';
import { described, Field, FormError } from '../components/Field';
import { Loading } from '../components/Loading';
import { CreateButton, NameField, ShortIdField, shortIdFrom, useLoadedList } from '../components/SetupParts';
import { ShownOnce } from '../components/ShownOnce';
import { TableScroll } from '../components/TableScroll';
import { tell } from '../components/undo';
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

type Created = paths['/api/typeahead/instances']['post']['responses'][201]['content']['application/json'];

/** An instance id from a name: a DNS label ("Shop (English)" → "shop-english"). */
const instanceIdFrom = (name: string) => shortIdFrom(name, /[^a-z0-9]+/g, 63);

const readInstances = () => api.GET('/api/typeahead/instances');

/** How long a replaced embed token keeps working, so the shop's pages can be given the new one. */
const GRACE_SECONDS = 3600;

export function TypeaheadPage({ session }: { session: Session }) {
  const { query } = useLocation();
  const { items: instances, error, setError, load } = useLoadedList<Instance>(readInstances);
  const [token, setToken] = useState<{ title: string; value: string }>();
  const confirm = useConfirm();
  const admin = mayEdit(session, 'platform');
  const creating = admin && query.has('new');
  const editing = admin ? query.get('edit') : null;
  const id = query.get('instance') ?? instances?.[0]?.id;

  async function rotate(instance: Instance) {
    const confirmed = await confirm({
      title: `Issue a new embed token for "${instance.name}"?`,
      message:
        'The shop’s pages need the new token to keep getting suggestions. The old one keeps working for an hour, time to give them the new one; then it stops.',
      confirm: 'Issue new token',
    });
    if (!confirmed) return;
    const { data, error } = await api.POST('/api/typeahead/instances/{id}/embed-token', {
      params: { path: { id: instance.id }, query: { graceSeconds: GRACE_SECONDS } },
    });
    if (!data) return setError(errorOf(error));
    setError(undefined);
    setToken({ title: `New embed token of "${instance.name}".`, value: data.embedToken });
  }

  async function remove(instance: Instance) {
    const confirmed = await confirm({
      title: `Delete the typeahead instance "${instance.name}"?`,
      message:
        'Its terms and search logs go with it, and the shop’s search box stops getting suggestions from it. This cannot be undone.',
      confirm: 'Delete instance',
    });
    if (!confirmed) return;
    const { error } = await api.DELETE('/api/typeahead/instances/{id}', {
      params: { path: { id: instance.id } },
    });
    if (error) return setError(errorOf(error));
    setError(undefined);
    tell(`Deleted the typeahead instance "${instance.name}".`);
    if (query.get('instance') === instance.id) setQuery({ instance: undefined });
    await load();
  }

  return (
    <>
      <h1>Typeahead</h1>
      <p className="empty-state">
        A typeahead instance gives the shop’s search box its suggestions: the terms you choose and the most
        searched ones. The shop’s pages ask for them with the instance’s embed token.
      </p>
      {admin && !creating && <CreateButton label="Create a typeahead instance" />}
      {creating && (
        <InstanceForm
          onDone={async (saved) => {
            setQuery({ new: undefined, ...(saved ? { instance: saved.id } : {}) });
            if (saved) {
              const created = saved as Created;
              setToken({ title: `Typeahead instance "${saved.name}" created.`, value: created.embedToken });
              await load();
            }
          }}
        />
      )}
      {token && (
        <ShownOnce
          title={token.title}
          values={[{ label: 'Embed token', value: token.value }]}
          advice="Put it in the shop's pages that show the search box: it lets them ask for suggestions, nothing more."
          onDone={() => setToken(undefined)}
        />
      )}
      {error && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
      {instances === undefined && !error ? (
        <Loading what="the typeahead instances" />
      ) : instances?.length === 0 ? null : (
        <TableScroll label="Typeahead instances">
          <table>
            <caption className="visually-hidden">Typeahead instances</caption>
            <thead>
              <tr>
                <th scope="col">Instance</th>
                <th scope="col">Name</th>
                <th scope="col">Allowed origins</th>
                <th scope="col">Top-terms window (days)</th>
                {admin && <th scope="col">Actions</th>}
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
                  {admin && (
                    <td>
                      <div className="actions">
                        <button
                          type="button"
                          aria-label={`Edit ${i.name}`}
                          onClick={() => setQuery({ edit: i.id, new: undefined })}
                        >
                          Edit
                        </button>
                        <button
                          type="button"
                          aria-label={`New embed token for ${i.name}`}
                          onClick={() => rotate(i)}
                        >
                          New embed token
                        </button>
                        <button type="button" aria-label={`Delete ${i.name}`} onClick={() => remove(i)}>
                          Delete
                        </button>
                      </div>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {instances?.length === 0 && <p role="status">No typeahead instance yet.</p>}
      {editing && instances && (
        <InstanceForm
          key={editing}
          instance={instances.find((i) => i.id === editing)}
          onDone={async (saved) => {
            setQuery({ edit: undefined });
            if (saved) {
              tell(`Saved the typeahead instance "${saved.name}".`);
              await load();
            }
          }}
        />
      )}
      {id && instances?.some((i) => i.id === id) && (
        <InstanceTerms key={id} id={id} editable={mayEdit(session, 'typeahead', id)} />
      )}
    </>
  );
}

/** The form for a new typeahead instance, or for changing `instance`. */
function InstanceForm({
  instance,
  onDone,
}: {
  instance?: Instance;
  onDone: (saved?: Instance | Created) => void;
}) {
  const [name, setName] = useState(instance?.name ?? '');
  const [id, setId] = useState<string>();
  const [error, setError] = useState<ErrorBody>();
  const shownId = id ?? instanceIdFrom(name);

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const origins = lines(String(form.get('allowedOrigins') ?? ''));
    const settings = {
      name,
      allowedOrigins: origins.length ? origins : ['*'],
      topTermsWindowDays: Number(form.get('topTermsWindowDays')),
      minCount: Number(form.get('minCount')),
      cacheMaxAgeSeconds: Number(form.get('cacheMaxAgeSeconds')),
    };
    const answer = instance
      ? await api.PATCH('/api/typeahead/instances/{id}', {
          params: { path: { id: instance.id } },
          body: settings,
        })
      : await api.POST('/api/typeahead/instances', { body: { ...settings, id: shownId } });
    if (answer.error) return setError(errorOf(answer.error));
    onDone(answer.data);
  }

  const title = instance ? `Edit the typeahead instance "${instance.name}"` : 'New typeahead instance';
  return (
    <form className="card setup-form" onSubmit={save} aria-label={title}>
      <h2>{title}</h2>
      <NameField id="instance-name" value={name} onChange={setName} error={error} />
      {!instance && (
        <ShortIdField
          id="instance-id"
          value={shownId}
          onChange={setId}
          error={error}
          hint="Part of the address the shop’s pages ask: lowercase letters, digits and inner dashes. It cannot be changed later."
          maxLength={63}
          pattern="[a-z0-9]([a-z0-9\-]*[a-z0-9])?"
        />
      )}
      <Field
        id="instance-origins"
        label="Websites allowed to ask"
        hint="One per line, such as https://shop.example.com. Empty: any website."
        error={error}
        field="allowedOrigins"
      >
        <textarea
          {...described('instance-origins', error, 'allowedOrigins')}
          name="allowedOrigins"
          rows={2}
          defaultValue={instance?.allowedOrigins.filter((o) => o !== '*').join('\n')}
        />
      </Field>
      <Field
        id="instance-window"
        label="Most searched over (days)"
        hint="How many past days of searches pick the most searched terms."
        error={error}
        field="topTermsWindowDays"
      >
        <input
          {...described('instance-window', error, 'topTermsWindowDays')}
          name="topTermsWindowDays"
          type="number"
          min={1}
          max={365}
          required
          defaultValue={instance?.topTermsWindowDays ?? 30}
        />
      </Field>
      <Field
        id="instance-min-count"
        label="Searched at least (times)"
        hint="A term is suggested from searches only once this many searches asked for it."
        error={error}
        field="minCount"
      >
        <input
          {...described('instance-min-count', error, 'minCount')}
          name="minCount"
          type="number"
          min={1}
          required
          defaultValue={instance?.minCount ?? 3}
        />
      </Field>
      <Field
        id="instance-cache"
        label="Browsers may reuse suggestions for (seconds)"
        hint="Longer is lighter on searchdeck; a change of terms shows up that much later."
        error={error}
        field="cacheMaxAgeSeconds"
      >
        <input
          {...described('instance-cache', error, 'cacheMaxAgeSeconds')}
          name="cacheMaxAgeSeconds"
          type="number"
          min={0}
          max={86400}
          required
          defaultValue={instance?.cacheMaxAgeSeconds ?? 60}
        />
      </Field>
      <FormError error={error} />
      <div className="actions">
        <button type="submit" className="primary">
          {instance ? 'Save' : 'Create instance'}
        </button>
        <button type="button" onClick={() => onDone()}>
          Cancel
        </button>
      </div>
    </form>
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
