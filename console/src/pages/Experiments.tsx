// Experiments of an app: which ones there are and on which query profile, setting one up from
// a profile, starting and stopping it, following its results (the rates of each variant with
// their 95 % intervals, and in words whether a difference is clear yet) and promoting the
// winner. The app, the experiment open and the form shown are in the URL. This page loads only
// when it is opened.
import { useCallback, useEffect, useState } from 'react';
import { api, dataOrThrow, type ErrorBody, errorOf, mayEdit, type Session } from '../api/client';
import { AppChoice } from '../components/AppChoice';
import { useConfirm } from '../components/Confirm';
import { Loading } from '../components/Loading';
import { TableScroll } from '../components/TableScroll';
import { tell } from '../components/undo';
import { setQuery, useLocation } from '../router';
import { bodyOf, draftOf, type ExperimentDraft, newDraft, shares, variantName } from './experiments/draft';
import { ExperimentForm } from './experiments/ExperimentForm';
import { ExperimentView } from './experiments/ExperimentView';
import { type Experiment, type Profile, settingsOf, stateOf } from './experiments/model';
import './experiments/experiments.css';

export default function ExperimentsPage({ session }: { session: Session }) {
  const { query } = useLocation();
  const app = query.get('app') ?? '';
  const open = query.get('experiment') ?? undefined;
  const editing = query.get('edit') ?? undefined;
  const editable = mayEdit(session, 'platform');
  const [apps, setApps] = useState<string[]>([]);
  const [experiments, setExperiments] = useState<Experiment[]>();
  const [profiles, setProfiles] = useState<Profile[]>([]);
  const [studios, setStudios] = useState<string[]>([]);
  const [error, setError] = useState<ErrorBody>();
  const [formError, setFormError] = useState<ErrorBody>();
  const [busy, setBusy] = useState(false);
  const confirm = useConfirm();

  useEffect(() => {
    api.GET('/api/apps').then(({ data }) => setApps(data?.map((known) => known.id) ?? []));
    api.GET('/api/studios').then(({ data }) => setStudios(data?.map((s) => s.id) ?? []));
  }, []);

  const load = useCallback(async () => {
    if (app === '') return setExperiments(undefined);
    const [listed, inApp] = await Promise.all([
      api.GET('/api/apps/{app}/experiments', { params: { path: { app } } }),
      api.GET('/api/apps/{app}/query-profiles', { params: { path: { app } } }),
    ]);
    setExperiments(listed.data);
    setProfiles(inApp.data ?? []);
    setError(listed.data ? undefined : errorOf(listed.error));
  }, [app]);
  useEffect(() => {
    setExperiments(undefined);
    load();
  }, [load]);

  const profileOf = (id: string) => profiles.find((p) => p.experiment === id);
  const studioOf = (profile: string) => profiles.find((p) => p.id === profile)?.studio;

  /** Puts the experiment on the profile (the profile names the experiment it runs). */
  async function runOn(profileId: string, experiment: string) {
    const profile = await dataOrThrow(
      api.GET('/api/apps/{app}/query-profiles/{id}', { params: { path: { app, id: profileId } } }),
    );
    const { id: _id, createdAt: _c, updatedAt: _u, ...settings } = profile;
    await dataOrThrow(
      api.PUT('/api/apps/{app}/query-profiles/{id}', {
        params: { path: { app, id: profileId } },
        body: { ...settings, experiment },
      }),
    );
  }

  async function save(draft: ExperimentDraft, before: Experiment | undefined) {
    setBusy(true);
    setFormError(undefined);
    const { id, ...settings } = bodyOf(draft);
    try {
      if (before) {
        const { description: _d, ...kept } = settingsOf(before);
        // A description emptied in the form is left out, so it goes (a PUT replaces the settings).
        await dataOrThrow(
          api.PUT('/api/apps/{app}/experiments/{id}', {
            params: { path: { app, id } },
            body: { ...kept, ...settings, enabled: before.enabled },
          }),
        );
      } else {
        await dataOrThrow(
          api.POST('/api/apps/{app}/experiments', { params: { path: { app } }, body: { id, ...settings } }),
        );
      }
      if (draft.profile && profileOf(id)?.id !== draft.profile) {
        try {
          await runOn(draft.profile, id);
        } catch (refusal) {
          // A new experiment no profile can run is not kept: the form stays, to be saved again.
          if (!before)
            await api.DELETE('/api/apps/{app}/experiments/{id}', { params: { path: { app, id } } });
          throw refusal;
        }
      }
      await load();
      tell(
        before ? `Saved the experiment ${id}.` : `Created the experiment ${id}: start it when it is ready.`,
      );
      setQuery({ edit: undefined, experiment: id });
    } catch (refusal) {
      setFormError(errorOf(refusal));
    } finally {
      setBusy(false);
    }
  }

  async function remove(experiment: Experiment) {
    const profile = profileOf(experiment.id);
    const confirmed = await confirm({
      title: `Delete the experiment ${experiment.id}?`,
      message: `Its settings go, and with them the way to read its results. ${
        profile
          ? `The profile ${profile.id} stops running it: every shopper gets the profile's own settings.`
          : ''
      } This cannot be undone.`,
      confirm: 'Delete experiment',
    });
    if (!confirmed) return;
    try {
      if (profile) {
        const { id: _id, createdAt: _c, updatedAt: _u, experiment: _e, ...settings } = profile;
        await dataOrThrow(
          api.PUT('/api/apps/{app}/query-profiles/{id}', {
            params: { path: { app, id: profile.id } },
            body: settings,
          }),
        );
      }
      await dataOrThrow(
        api.DELETE('/api/apps/{app}/experiments/{id}', { params: { path: { app, id: experiment.id } } }),
      );
      tell(`Deleted the experiment ${experiment.id}.`);
      setQuery({ experiment: undefined, edit: undefined });
    } catch (refusal) {
      setError(errorOf(refusal));
    }
    await load();
  }

  const edited = editing && editing !== 'new' ? experiments?.find((e) => e.id === editing) : undefined;
  const opened = open ? experiments?.find((e) => e.id === open) : undefined;
  const firstFree = profiles.find((p) => !p.experiment)?.id ?? '';
  return (
    <>
      <h1>Experiments</h1>
      <p className="lead">
        Try a change on part of the shop's shoppers before everyone gets it: each shopper is put in one group
        (a variant) and stays there, and the page compares how often each group clicks, buys or finds nothing.
      </p>
      <AppChoice
        app={app}
        apps={apps}
        listId="experiment-apps"
        show="Show experiments"
        onChoose={(value) => setQuery({ app: value, experiment: undefined, edit: undefined })}
      >
        {editable && app && (
          <button
            type="button"
            className="primary"
            onClick={() => setQuery({ edit: 'new', experiment: undefined })}
          >
            New experiment
          </button>
        )}
      </AppChoice>
      {app === '' && (
        <p role="status">Name an app to see its experiments (they run on the app's query profiles).</p>
      )}
      {app === '' && apps.length > 0 && (
        <nav aria-label="Apps">
          <ul className="choices">
            {apps.map((known) => (
              <li key={known}>
                <button type="button" onClick={() => setQuery({ app: known })}>
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
      {app && experiments === undefined && !error && <Loading what="the experiments" />}
      {experiments?.length === 0 && (
        <p role="status">
          No experiment in {app} yet.{' '}
          {profiles.length === 0 ? 'An experiment runs on a query profile: create one first.' : ''}
        </p>
      )}
      {experiments && experiments.length > 0 && (
        <TableScroll label={`Experiments of ${app}`}>
          <table>
            <caption className="visually-hidden">Experiments of {app}</caption>
            <thead>
              <tr>
                <th scope="col">Experiment</th>
                <th scope="col">Query profile</th>
                <th scope="col">State</th>
                <th scope="col">Variants and their shares</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {experiments.map((e) => {
                const percents = shares(e.variants.map((v) => v.weight));
                return (
                  <tr key={e.id} aria-selected={e.id === open}>
                    <td>
                      {e.id}
                      {e.description && <div className="hint">{e.description}</div>}
                    </td>
                    <td>{profileOf(e.id)?.id ?? '—'}</td>
                    <td>{stateOf(e).short}</td>
                    <td>
                      {e.variants
                        .map((v, i) => `${variantName(v)} ${Math.round(percents[i] ?? 0)} %`)
                        .join(', ')}
                    </td>
                    <td>
                      <div className="actions">
                        <button
                          type="button"
                          aria-label={`Open ${e.id}`}
                          aria-pressed={e.id === open}
                          onClick={() => setQuery({ experiment: e.id, edit: undefined })}
                        >
                          Open
                        </button>
                        {editable && (
                          <button type="button" aria-label={`Delete ${e.id}`} onClick={() => remove(e)}>
                            Delete
                          </button>
                        )}
                      </div>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableScroll>
      )}
      {editable && experiments && (editing === 'new' || edited) && (
        <ExperimentForm
          key={`${app}/${editing}`}
          initial={
            edited
              ? draftOf(edited, profileOf(edited.id)?.id ?? '')
              : newDraft(firstFree, profiles.find((p) => p.id === firstFree)?.signals.userParam ?? 'user_id')
          }
          editing={edited !== undefined}
          lockProfile={edited !== undefined && profileOf(edited.id) !== undefined}
          profiles={profiles}
          studios={studios}
          profileStudio={studioOf}
          error={formError}
          busy={busy}
          onSave={(draft) => save(draft, edited)}
          onCancel={() => {
            setFormError(undefined);
            setQuery({ edit: undefined });
          }}
        />
      )}
      {opened && !editing && (
        <ExperimentView
          key={`${app}/${opened.id}/${opened.updatedAt}`}
          app={app}
          experiment={opened}
          profile={profileOf(opened.id)}
          editable={editable}
          onChanged={load}
        />
      )}
    </>
  );
}
