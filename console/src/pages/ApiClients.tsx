// API clients of a studio (admin only): the OAuth2 clients the shop's tools use for the Rules
// and Rewrites APIs. A new client's secret is shown once; revoking a client ends every token
// issued to it. The API has no rotation: a new client replaces an old one.
import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { api, type ErrorBody, errorOf, type Session } from '../api/client';
import type { paths } from '../api/schema';
import { useConfirm } from '../components/Confirm';
import { described, Field } from '../components/Field';
import { Loading } from '../components/Loading';
import { ShownOnce } from '../components/ShownOnce';
import { TableScroll } from '../components/TableScroll';
import { tell } from '../components/undo';
import { setQuery, useLocation } from '../router';
import { messagesInWords } from '../words';

type Client =
  paths['/api/studios/{id}/clients']['get']['responses'][200]['content']['application/json'][number];
type Created = paths['/api/studios/{id}/clients']['post']['responses'][201]['content']['application/json'];

const SCOPES = ['commercestudio.rules', 'commercestudio.rewrites'] as const;
const SCOPE_WORDS: Record<(typeof SCOPES)[number], string> = {
  'commercestudio.rules': 'Rules',
  'commercestudio.rewrites': 'Rewrites',
};

export function ApiClientsPage({ session }: { session: Session }) {
  const { query } = useLocation();
  const [studios, setStudios] = useState<string[]>();
  const [clients, setClients] = useState<Client[]>();
  const [created, setCreated] = useState<Created>();
  const [error, setError] = useState<ErrorBody>();
  const [creating, setCreating] = useState(false);
  const admin = session.role === 'admin';
  const confirm = useConfirm();
  const studio = query.get('studio') ?? studios?.[0];

  useEffect(() => {
    if (!admin) return;
    api.GET('/api/studios').then(({ data }) => setStudios((data ?? []).map((s) => s.id)));
  }, [admin]);
  const load = useCallback(async () => {
    if (studio === undefined) return;
    const { data, error } = await api.GET('/api/studios/{id}/clients', { params: { path: { id: studio } } });
    setClients(data);
    if (!data) setError(errorOf(error));
  }, [studio]);
  useEffect(() => {
    if (admin) load();
  }, [admin, load]);

  if (!admin) {
    return (
      <>
        <h1>API clients</h1>
        <p role="status">Only an admin manages API clients.</p>
      </>
    );
  }

  async function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (studio === undefined) return;
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const scopes = SCOPES.filter((s) => form.get(s) === 'on');
    const { data, error } = await api.POST('/api/studios/{id}/clients', {
      params: { path: { id: studio } },
      body: { name: String(form.get('name') ?? ''), ...(scopes.length ? { scopes } : {}) },
    });
    if (!data) return setError(errorOf(error));
    setError(undefined);
    setCreated(data);
    setCreating(false);
    formElement.reset();
    await load();
  }

  async function revoke(client: Client) {
    const confirmed = await confirm({
      title: `Revoke the API client "${client.name}"?`,
      message:
        'The tools that use it can no longer change rules or rewrites: its tokens stop working at once. This cannot be undone; a new client gets a new id and secret.',
      confirm: 'Revoke client',
    });
    if (!confirmed) return;
    const { error } = await api.DELETE('/api/studios/{id}/clients/{clientId}', {
      params: { path: { id: client.studioId, clientId: client.clientId } },
    });
    if (error) return setError(errorOf(error));
    if (created?.clientId === client.clientId) setCreated(undefined);
    tell(`Revoked the API client "${client.name}".`);
    await load();
  }

  return (
    <>
      <h1>API clients</h1>
      <div className="toolbar">
        <div className="field">
          <label htmlFor="clients-studio">Studio</label>
          <select
            id="clients-studio"
            value={studio ?? ''}
            onChange={(e) => {
              setCreated(undefined);
              setQuery({ studio: e.target.value });
            }}
          >
            {studios?.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </div>
      </div>
      {studios?.length === 0 && <p role="status">No studio yet.</p>}
      <p>
        A client gets tokens at <code>POST /oauth2/token</code> with its id and secret. To rotate a secret,
        create a new client, move the tool to it, then revoke the old one.
      </p>
      {created && (
        <ShownOnce
          title={`API client "${created.name}" created.`}
          values={[
            { label: 'Client id', value: created.clientId },
            { label: 'Client secret', value: created.clientSecret },
          ]}
          advice="Keep the secret where only the tool can read it: with it, anyone can change this studio's rules."
          onDone={() => setCreated(undefined)}
        />
      )}
      {error && (
        <p className="error" role="alert">
          {messagesInWords(error, { name: 'Client name', scopes: 'Scopes' })}
        </p>
      )}
      {studios === undefined || (studio !== undefined && clients === undefined && !error) ? (
        <Loading what="the API clients" />
      ) : clients?.length === 0 ? null : (
        <TableScroll label={`API clients of ${studio}`}>
          <table>
            <caption className="visually-hidden">API clients of {studio}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Client id</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {clients?.map((c) => (
                <tr key={c.clientId}>
                  <td>{c.name}</td>
                  <td>
                    <code>{c.clientId}</code>
                  </td>
                  <td>{c.scopes.join(', ')}</td>
                  <td>{new Date(c.createdAt).toLocaleString()}</td>
                  <td>
                    <button type="button" aria-label={`Revoke ${c.name}`} onClick={() => revoke(c)}>
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {clients?.length === 0 && <p>No API client in {studio} yet.</p>}
      {studio !== undefined && !creating && (
        <div className="toolbar">
          <button type="button" className="primary" onClick={() => setCreating(true)}>
            New API client
          </button>
        </div>
      )}
      {studio !== undefined && creating && (
        <form className="card setup-form" onSubmit={create} aria-label="New API client">
          <h2>New API client of {studio}</h2>
          <Field
            id="client-name"
            label="Client name"
            hint="Names the tool that will use it, such as “feed importer”, so you know what to revoke later."
            error={error}
            field="name"
          >
            <input
              {...described('client-name', error, 'name')}
              name="name"
              required
              maxLength={200}
              autoComplete="off"
              // biome-ignore lint/a11y/noAutofocus: the form opens on request; its first field takes the focus
              autoFocus
            />
          </Field>
          <fieldset className="toolbar">
            <legend>What it may change (none ticked: both)</legend>
            {SCOPES.map((s) => (
              <label className="inline" key={s}>
                <input type="checkbox" name={s} /> {SCOPE_WORDS[s]} <code>{s}</code>
              </label>
            ))}
          </fieldset>
          <div className="actions">
            <button type="submit" className="primary">
              Create client
            </button>
            <button type="button" onClick={() => setCreating(false)}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </>
  );
}
