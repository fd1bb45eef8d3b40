// A query profile's settings: created (with its id) or replaced, the API's messages shown
// beside the field they are about.
import { type FormEvent, useEffect, useState } from 'react';
import { api, type ErrorBody, errorOf, messageFor } from '../../api/client';
import type { components } from '../../api/schema';
import { plainMessageFor } from '../../words';
import { defaultsOf, linesOf, listOf } from './params';
import './preview.css';

export type Profile = components['schemas']['QueryProfile'];

/** The choices the form offers: the app's clusters, the studios, the typeahead instances. */
function useChoices(app: string) {
  const [choices, setChoices] = useState<{
    clusters: string[];
    /** Those already in the app's context; the others are put there when chosen. */
    appClusters: string[];
    studios: string[];
    instances: string[];
  }>({ clusters: [], appClusters: [], studios: [], instances: [] });
  useEffect(() => {
    Promise.all([
      api.GET('/api/apps/{app}/searchCluster', { params: { path: { app } } }),
      api.GET('/api/searchCluster'),
      api.GET('/api/studios'),
      api.GET('/api/typeahead/instances'),
    ]).then(([inApp, all, studios, instances]) => {
      const ids = (answer: { data?: unknown }) => ((answer.data ?? []) as { id: string }[]).map((c) => c.id);
      setChoices({
        clusters: [...new Set([...ids(inApp), ...ids(all)])],
        appClusters: ids(inApp),
        studios: (studios.data ?? []).map((s) => s.id),
        instances: (instances.data ?? []).map((i) => i.id),
      });
    });
  }, [app]);
  return choices;
}

/** The collections of the chosen cluster, asked when it is chosen, and a line saying what was found. */
function useCollections(cluster: string) {
  const [state, setState] = useState<{ names: string[]; note: string }>({ names: [], note: '' });
  useEffect(() => {
    if (!cluster) return setState({ names: [], note: '' });
    let current = true;
    setState({ names: [], note: `Asking ${cluster} for its collections…` });
    api
      .GET('/api/searchCluster/{id}/collections', { params: { path: { id: cluster } } })
      .then(({ data, error }) => {
        if (!current) return;
        if (data) {
          setState({
            names: data,
            note:
              data.length === 0
                ? `${cluster} has no collection yet.`
                : `In ${cluster}: ${data.join(', ')}. Type one or choose it from the list.`,
          });
        } else {
          setState({
            names: [],
            note: `${cluster} could not be asked for its collections (${errorOf(error).message}); type the name.`,
          });
        }
      });
    return () => {
      current = false;
    };
  }, [cluster]);
  return state;
}

/** The display fields a profile names for its product cards, with what an empty one means. */
const DISPLAY_FIELDS = [
  ['title', 'Title field (empty: name, else title)'],
  ['image', 'Image field, holding an image URL (empty: image)'],
  ['price', 'Price field (empty: price)'],
] as const;

/** The display fields filled in; none filled: no `display` (the defaults). */
function displayOf(text: (name: string) => string): { display?: NonNullable<Profile['display']> } {
  const display = Object.fromEntries(
    DISPLAY_FIELDS.map(([member]) => [member, text(`display.${member}`)]).filter(([, value]) => value !== ''),
  );
  return Object.keys(display).length === 0 ? {} : { display };
}

/** The fields' names in the messages shown beside them. */
const LABELS: Record<string, string> = {
  id: 'Profile id',
  searchCluster: 'Search cluster',
  collection: 'Collection',
  studio: 'Studio',
  typeahead: 'Typeahead instance',
  defaults: 'Default Solr parameters',
  allowedParams: 'Parameters a shopper may send',
  sortFields: 'Sort fields',
  returnFields: 'Return fields',
  timeoutMs: 'Timeout',
};

function Message({ error, field }: { error: ErrorBody | undefined; field: string }) {
  const message = plainMessageFor(error, field, LABELS[field] ?? field);
  return message ? (
    <span className="field-error" id={`profile-${field}-error`}>
      {message}
    </span>
  ) : null;
}

export function ProfileForm({
  app,
  profile,
  onSaved,
  onCancel,
}: {
  app: string;
  profile: Profile | undefined;
  onSaved: (profile: Profile) => void;
  onCancel: () => void;
}) {
  const choices = useChoices(app);
  const [cluster, setCluster] = useState(profile?.searchCluster ?? '');
  const collections = useCollections(cluster);
  const [error, setError] = useState<ErrorBody>();

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? '').trim();
    const timeout = text('timeoutMs');
    const settings = {
      searchCluster: text('searchCluster'),
      collection: text('collection'),
      ...(text('studio') ? { studio: text('studio') } : {}),
      ...(text('typeahead') ? { typeahead: text('typeahead') } : {}),
      defaults: defaultsOf(text('defaults')),
      allowedParams: listOf(text('allowedParams')),
      // Empty: any plain field name, as the API reads a profile without the list.
      ...(text('sortFields') ? { sortFields: listOf(text('sortFields')) } : {}),
      ...(text('returnFields') ? { returnFields: listOf(text('returnFields')) } : {}),
      logSearches: form.get('logSearches') === 'on',
      ...(timeout ? { timeoutMs: Number(timeout) } : {}),
      ...displayOf(text),
      // Not edited in this form yet: kept as they are, not reset to their defaults by a save.
      ...(profile ? { allowedOrigins: profile.allowedOrigins, signals: profile.signals } : {}),
    };
    // A profile uses a cluster of its app: a cluster chosen from outside the app is put in the
    // app's context first (the link the API's app-scoped create would have made).
    if (settings.searchCluster && !choices.appClusters.includes(settings.searchCluster)) {
      const { error } = await api.PUT('/api/links', {
        body: {
          subject: `search-cluster:${settings.searchCluster}`,
          object: `app:${app}`,
          linkType: 'inContextOf',
        },
      });
      if (error) return setError(errorOf(error));
    }
    const { data, error } = profile
      ? await api.PUT('/api/apps/{app}/query-profiles/{id}', {
          params: { path: { app, id: profile.id } },
          body: settings,
        })
      : await api.POST('/api/apps/{app}/query-profiles', {
          params: { path: { app } },
          body: { id: text('id'), ...settings },
        });
    if (data) {
      setError(undefined);
      onSaved(data);
    } else setError(errorOf(error));
  }

  const described = (field: string) => ({
    'aria-describedby': `profile-${field}-error`,
    'aria-invalid': messageFor(error, field) !== undefined,
  });
  return (
    <form
      className="card profile-form"
      onSubmit={save}
      aria-label={profile ? `Edit profile ${profile.id}` : 'New query profile'}
    >
      <h2>{profile ? `Profile ${profile.id}` : 'New query profile'}</h2>
      {!profile && (
        <div className="field">
          <label htmlFor="profile-id">Profile id</label>
          <input
            id="profile-id"
            name="id"
            required
            {...described('id')}
            // biome-ignore lint/a11y/noAutofocus: the form opens on request; its first field takes the focus
            autoFocus
          />
          <Message error={error} field="id" />
        </div>
      )}
      <div className="field">
        <label htmlFor="profile-cluster">Search cluster</label>
        <select
          id="profile-cluster"
          // biome-ignore lint/a11y/noAutofocus: an existing profile's form starts at its first field
          autoFocus={profile !== undefined}
          name="searchCluster"
          defaultValue={profile?.searchCluster ?? ''}
          onChange={(event) => setCluster(event.currentTarget.value)}
          {...described('searchCluster')}
        >
          <option value="">choose one</option>
          {choices.clusters.map((c) => (
            <option key={c}>{c}</option>
          ))}
        </select>
        <Message error={error} field="searchCluster" />
      </div>
      <div className="field">
        <label htmlFor="profile-collection">Collection</label>
        <input
          id="profile-collection"
          name="collection"
          list="profile-collections"
          autoComplete="off"
          defaultValue={profile?.collection ?? ''}
          {...described('collection')}
          aria-describedby="profile-collection-error profile-collection-found"
        />
        <datalist id="profile-collections">
          {collections.names.map((name) => (
            <option key={name} value={name} />
          ))}
        </datalist>
        {collections.note && (
          <span className="hint" id="profile-collection-found" aria-live="polite">
            {collections.note}
          </span>
        )}
        <Message error={error} field="collection" />
      </div>
      <div className="field">
        <label htmlFor="profile-studio">Studio (rules and rewrites)</label>
        <select
          id="profile-studio"
          name="studio"
          defaultValue={profile?.studio ?? ''}
          {...described('studio')}
        >
          <option value="">none</option>
          {choices.studios.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
        <Message error={error} field="studio" />
      </div>
      <div className="field">
        <label htmlFor="profile-typeahead">Typeahead instance (search logging)</label>
        <select
          id="profile-typeahead"
          name="typeahead"
          defaultValue={profile?.typeahead ?? ''}
          {...described('typeahead')}
        >
          <option value="">none</option>
          {choices.instances.map((i) => (
            <option key={i}>{i}</option>
          ))}
        </select>
        <Message error={error} field="typeahead" />
      </div>
      <div className="field">
        <label htmlFor="profile-defaults">Default Solr parameters (name=value, one a line)</label>
        <textarea
          id="profile-defaults"
          name="defaults"
          rows={5}
          spellCheck={false}
          defaultValue={linesOf(profile?.defaults)}
          {...described('defaults')}
        />
        <Message error={error} field="defaults" />
      </div>
      <div className="field">
        <label htmlFor="profile-allowed">Shopper parameters passed on (comma-separated)</label>
        <input
          id="profile-allowed"
          name="allowedParams"
          defaultValue={profile?.allowedParams.join(', ') ?? 'rows, start, fq, sort'}
          {...described('allowedParams')}
        />
        <Message error={error} field="allowedParams" />
      </div>
      <div className="field">
        <label htmlFor="profile-sort-fields">
          Fields a shopper may sort by (comma-separated; empty: any)
        </label>
        <input
          id="profile-sort-fields"
          name="sortFields"
          defaultValue={profile?.sortFields?.join(', ') ?? ''}
          {...described('sortFields')}
        />
        <Message error={error} field="sortFields" />
      </div>
      <div className="field">
        <label htmlFor="profile-return-fields">
          Fields a shopper may ask for in fl (comma-separated; empty: any)
        </label>
        <input
          id="profile-return-fields"
          name="returnFields"
          defaultValue={profile?.returnFields?.join(', ') ?? ''}
          {...described('returnFields')}
        />
        <Message error={error} field="returnFields" />
      </div>
      <div className="field">
        <label htmlFor="profile-timeout">Solr timeout (ms)</label>
        <input
          id="profile-timeout"
          name="timeoutMs"
          type="number"
          defaultValue={profile?.timeoutMs ?? 5000}
          {...described('timeoutMs')}
        />
        <Message error={error} field="timeoutMs" />
      </div>
      <fieldset className="profile-display">
        <legend>Product cards in the query preview</legend>
        {DISPLAY_FIELDS.map(([member, label]) => (
          <div className="field" key={member}>
            <label htmlFor={`profile-display-${member}`}>{label}</label>
            <input
              id={`profile-display-${member}`}
              name={`display.${member}`}
              defaultValue={profile?.display?.[member] ?? ''}
              {...described(`display.${member}`)}
            />
            <Message error={error} field={`display.${member}`} />
          </div>
        ))}
      </fieldset>
      <label className="inline">
        <input name="logSearches" type="checkbox" defaultChecked={profile?.logSearches ?? true} /> Log
        searches into the typeahead instance
      </label>
      {error && !error.errors?.length && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
      <div className="toolbar">
        <button type="submit" className="primary">
          Save profile
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
