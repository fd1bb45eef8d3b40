// Query profiles of an app: the listing, a profile's settings (admin), its search-only keys,
// and the query workbench. The app, the chosen profile and the form shown are in the URL.
import { useCallback, useEffect, useState } from 'react';
import { api, dataOrThrow, type ErrorBody, errorOf, mayEdit, type Session } from '../api/client';
import { AppChoice } from '../components/AppChoice';
import { useConfirm } from '../components/Confirm';
import { Loading } from '../components/Loading';
import { TableScroll } from '../components/TableScroll';
import { offerUndo } from '../components/undo';
import { setQuery, useLocation } from '../router';
import { Keys } from './query/Keys';
import { type Profile, ProfileForm } from './query/ProfileForm';
import { Workbench } from './query/Workbench';

export function QueryProfilesPage({ session }: { session: Session }) {
  const { query } = useLocation();
  const app = query.get('app') ?? '';
  const chosen = query.get('profile') ?? undefined;
  const editing = query.get('edit') ?? undefined;
  const editable = mayEdit(session, 'platform');
  const [profiles, setProfiles] = useState<Profile[]>();
  const [error, setError] = useState<ErrorBody>();
  const [apps, setApps] = useState<string[]>([]);
  const confirm = useConfirm();

  // The apps named in the link graph, offered as choices (a new app may still be typed).
  useEffect(() => {
    api.GET('/api/apps').then(({ data }) => setApps(data?.map((known) => known.id) ?? []));
  }, []);

  const load = useCallback(async () => {
    if (app === '') return setProfiles(undefined);
    const { data, error } = await api.GET('/api/apps/{app}/query-profiles', { params: { path: { app } } });
    setProfiles(data);
    setError(data ? undefined : errorOf(error));
  }, [app]);
  useEffect(() => {
    load();
  }, [load]);

  async function remove(profile: Profile) {
    const { id } = profile;
    const confirmed = await confirm({
      title: `Delete the query profile "${id}" of ${app}?`,
      message:
        'Searches through it stop at once, and its search-only keys and links are deleted with it. Undo, offered for a few seconds, brings back its settings but not its keys: the shop then needs a new key.',
      confirm: 'Delete profile',
    });
    if (!confirmed) return;
    const { error } = await api.DELETE('/api/apps/{app}/query-profiles/{id}', {
      params: { path: { app, id } },
    });
    if (error) return setError(errorOf(error));
    if (chosen === id) setQuery({ profile: undefined, edit: undefined });
    await load();
    const { createdAt: _created, updatedAt: _updated, ...settings } = profile;
    offerUndo({
      done: `Deleted the query profile "${id}".`,
      undone: `The query profile "${id}" is back, without keys.`,
      undo: async () => {
        try {
          await dataOrThrow(
            api.POST('/api/apps/{app}/query-profiles', { params: { path: { app } }, body: settings }),
          );
        } finally {
          await load();
        }
      },
    });
  }

  const edited = editing === 'new' ? undefined : profiles?.find((p) => p.id === editing);
  return (
    <>
      <h1>Query profiles</h1>
      <AppChoice
        app={app}
        apps={apps}
        listId="known-apps"
        show="Show profiles"
        onChoose={(value) => setQuery({ app: value, profile: undefined, edit: undefined })}
      >
        {editable && app && (
          <button type="button" className="primary" onClick={() => setQuery({ edit: 'new' })}>
            New profile
          </button>
        )}
      </AppChoice>
      {app === '' && <p role="status">Name an app to see its query profiles (profiles live in an app).</p>}
      {app === '' && apps.length > 0 && (
        <nav aria-label="Apps">
          <ul className="choices">
            {apps.map((known) => (
              <li key={known}>
                <button
                  type="button"
                  onClick={() => setQuery({ app: known, profile: undefined, edit: undefined })}
                >
                  {known}
                </button>
              </li>
            ))}
          </ul>
        </nav>
      )}
      {error && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
      {app && profiles === undefined && !error && <Loading what="the profiles" />}
      {app && profiles !== undefined && (
        <TableScroll label={`Query profiles of ${app}`}>
          <table>
            <caption className="visually-hidden">Query profiles of {app}</caption>
            <thead>
              <tr>
                <th scope="col">Profile</th>
                <th scope="col">Search cluster / collection</th>
                <th scope="col">Studio</th>
                <th scope="col">Typeahead</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {profiles?.map((p) => (
                <tr key={p.id} aria-selected={p.id === chosen}>
                  <td>{p.id}</td>
                  <td>
                    {p.searchCluster} / {p.collection}
                  </td>
                  <td>{p.studio ?? '—'}</td>
                  <td>{p.typeahead ?? '—'}</td>
                  <td>
                    <button
                      type="button"
                      aria-label={`Open ${p.id}`}
                      aria-pressed={p.id === chosen}
                      onClick={() => setQuery({ profile: p.id, edit: undefined })}
                    >
                      Open
                    </button>{' '}
                    {editable && (
                      <>
                        <button
                          type="button"
                          aria-label={`Edit ${p.id}`}
                          onClick={() => setQuery({ profile: p.id, edit: p.id })}
                        >
                          Edit
                        </button>{' '}
                        <button type="button" aria-label={`Delete ${p.id}`} onClick={() => remove(p)}>
                          Delete
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {profiles?.length === 0 && <p role="status">No query profile in {app} yet.</p>}
      {editable && editing !== undefined && (editing === 'new' || edited) && (
        <ProfileForm
          key={`${app}/${editing}/${edited?.updatedAt ?? ''}`}
          app={app}
          profile={edited}
          onCancel={() => setQuery({ edit: undefined })}
          onSaved={async (saved) => {
            await load();
            setQuery({ profile: saved.id, edit: undefined });
          }}
        />
      )}
      {chosen && profiles?.some((p) => p.id === chosen) && (
        <>
          <Workbench key={`w-${app}/${chosen}`} app={app} profile={chosen} />
          <Keys key={`k-${app}/${chosen}`} app={app} profile={chosen} editable={editable} />
        </>
      )}
    </>
  );
}
