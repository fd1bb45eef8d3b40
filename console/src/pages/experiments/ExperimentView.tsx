// One experiment: its state and variants in words, start and stop, its results (Results.tsx),
// and the promotion of a variant to the profile's own settings, asked first in a dialog that
// says what will change. After a promotion it shows the profile's settings as they now are.
import { useEffect, useState } from 'react';
import { api, dataOrThrow, type ErrorBody, errorOf } from '../../api/client';
import { useConfirm } from '../../components/Confirm';
import { TableScroll } from '../../components/TableScroll';
import { tell } from '../../components/undo';
import { setQuery } from '../../router';
import { changesOf, shares, variantName } from './draft';
import { type Experiment, type Profile, settingsOf, stateOf } from './model';
import { Results } from './Results';

export function ExperimentView({
  app,
  experiment,
  profile,
  editable,
  onChanged,
}: {
  app: string;
  experiment: Experiment;
  /** The profile that runs it, if one does. */
  profile: Profile | undefined;
  editable: boolean;
  onChanged: () => Promise<void>;
}) {
  const [error, setError] = useState<ErrorBody>();
  const [busy, setBusy] = useState(false);
  const confirm = useConfirm();
  const state = stateOf(experiment);
  const percents = shares(experiment.variants.map((v) => v.weight));
  const control = experiment.variants[0];
  const ended = experiment.promoted !== undefined;

  async function switchTo(enabled: boolean) {
    setBusy(true);
    try {
      await dataOrThrow(
        api.PUT('/api/apps/{app}/experiments/{id}', {
          params: { path: { app, id: experiment.id } },
          body: { ...settingsOf(experiment), enabled },
        }),
      );
      setError(undefined);
      tell(enabled ? `Started the experiment ${experiment.id}.` : `Stopped the experiment ${experiment.id}.`);
      await onChanged();
    } catch (refusal) {
      setError(errorOf(refusal));
    } finally {
      setBusy(false);
    }
  }

  async function promote(variant: Experiment['variants'][number]) {
    if (!profile) return;
    const name = variantName(variant);
    const changes = changesOf(variant, profile.studio);
    const confirmed = await confirm({
      title: `Make ${name} the settings of the query profile "${profile.id}"?`,
      message: (
        <>
          <p>
            {changes.length === 0
              ? `${name} is the profile as it is: its settings stay.`
              : `Every search through ${profile.id} gets what ${name} had:`}
          </p>
          {changes.length > 0 && (
            <ul>
              {changes.map((c) => (
                <li key={c}>{c}</li>
              ))}
            </ul>
          )}
          <p>
            The experiment {experiment.id} ends and leaves the profile: answers name no variant any more. The
            change is in the History; to go back, edit the profile.
          </p>
        </>
      ),
      confirm: `Make ${name} the settings`,
    });
    if (!confirmed) return;
    setBusy(true);
    try {
      await dataOrThrow(
        api.POST('/api/apps/{app}/experiments/{id}/promote', {
          params: { path: { app, id: experiment.id } },
          body: { variant: variant.id },
        }),
      );
      setError(undefined);
      tell(`${name} is now the settings of the profile ${profile.id}.`);
      await onChanged();
    } catch (refusal) {
      setError(errorOf(refusal));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="card" aria-label={`Experiment ${experiment.id}`}>
      <h2>Experiment {experiment.id}</h2>
      {experiment.description && <p>{experiment.description}</p>}
      <p className="experiment-state" role="status">
        {state.sentence}
      </p>
      <p>
        {profile
          ? `It runs on the query profile ${profile.id}. A shopper's group follows the search request's “${experiment.uniqueIdParameter}”; searches without it get ${control ? variantName(control) : 'the first variant'} and are not counted.`
          : 'No query profile runs it: shoppers get no variant. Choose a profile under “Change settings”.'}
      </p>
      {error && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
      {editable && !ended && (
        <div className="actions">
          {experiment.enabled ? (
            <button type="button" className="primary" disabled={busy} onClick={() => switchTo(false)}>
              Stop
            </button>
          ) : (
            <button
              type="button"
              className="primary"
              disabled={busy || !profile}
              onClick={() => switchTo(true)}
            >
              Start
            </button>
          )}
          {!experiment.enabled && (
            <button type="button" onClick={() => setQuery({ edit: experiment.id })}>
              Change settings
            </button>
          )}
        </div>
      )}
      {editable && experiment.enabled && !ended && (
        <p className="hint">
          Its settings can be changed once it is stopped, so that the results compare like with like.
        </p>
      )}
      <h3>Variants</h3>
      <TableScroll label={`Variants of ${experiment.id}`}>
        <table>
          <caption className="visually-hidden">Variants of {experiment.id}</caption>
          <thead>
            <tr>
              <th scope="col">Variant</th>
              <th scope="col">Share of shoppers</th>
              <th scope="col">What it changes</th>
            </tr>
          </thead>
          <tbody>
            {experiment.variants.map((v, i) => {
              const changes = changesOf(v, profile?.studio);
              return (
                <tr key={v.id}>
                  <td>
                    {variantName(v)}
                    {i === 0 ? ' (the control)' : ''}
                  </td>
                  <td className="numeric">{Math.round(percents[i] ?? 0)} %</td>
                  <td>{changes.length === 0 ? 'nothing: the profile as it is' : changes.join('; ')}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </TableScroll>
      <Results app={app} experiment={experiment} />
      {editable && profile && !ended && (
        <>
          <h3>Promote the winner</h3>
          <p className="hint">
            Makes a variant's changes the profile's own settings for every shopper and ends the experiment.
          </p>
          <div className="actions">
            {experiment.variants.map((v) => (
              <button key={v.id} type="button" disabled={busy} onClick={() => promote(v)}>
                Make {variantName(v)} the profile's settings
              </button>
            ))}
          </div>
        </>
      )}
      {experiment.promoted && <ProfileNow app={app} id={experiment.promoted.profile} />}
    </section>
  );
}

/** The promoted-to profile's settings as they are now: its studio, rewrites and default parameters. */
function ProfileNow({ app, id }: { app: string; id: string }) {
  const [profile, setProfile] = useState<Profile>();
  useEffect(() => {
    api
      .GET('/api/apps/{app}/query-profiles/{id}', { params: { path: { app, id } } })
      .then(({ data }) => setProfile(data));
  }, [app, id]);
  if (!profile) return null;
  const defaults = Object.entries(profile.defaults).map(
    ([key, value]) => `${key} = ${Array.isArray(value) ? value.join(' and ') : String(value)}`,
  );
  return (
    <section aria-label={`The profile ${id} now`}>
      <h3>The profile {id} now</h3>
      <ul>
        <li>{profile.studio ? `Rules and rewrites from the studio ${profile.studio}` : 'No studio'}</li>
        {profile.rewrites === false && <li>No query rewrites</li>}
        <li>Solr parameters of every search: {defaults.length === 0 ? 'none' : defaults.join('; ')}</li>
      </ul>
    </section>
  );
}
