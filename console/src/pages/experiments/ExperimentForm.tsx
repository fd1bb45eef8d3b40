// Setting up an experiment on a query profile: its name, the shopper parameter that keeps a
// shopper in one group, and the variants with their share of shoppers, studio, rewrites
// switch and Solr parameter changes. A new one is created stopped and put on the profile (the
// profile names the experiment it runs); a stopped one is edited here too. The API's messages
// show beside the field they are about, in words.
import { type FormEvent, useState } from 'react';
import type { ErrorBody } from '../../api/client';
import { plainMessage } from '../../words';
import {
  type ExperimentDraft,
  idFrom,
  labelOf,
  newVariant,
  type ParamDraft,
  POLICY_WORDS,
  type Policy,
  shares,
  type VariantDraft,
} from './draft';

/** The API's message about `field` in words, and the attributes that tie it to its control. */
function useSaid(error: ErrorBody | undefined) {
  return (field: string, id: string) => {
    const found = error?.errors?.find((e) => e.field === field || e.field.startsWith(`${field}.`));
    // Beside its field the message names the field alone ("Parameter", not "Variant 2, …").
    const message = found
      ? plainMessage(found.field, found.message, labelOf(found.field).split(': ').pop() ?? found.field)
      : undefined;
    return {
      control: {
        id,
        'aria-invalid': message !== undefined || undefined,
        'aria-describedby': `${id}-hint${message ? ` ${id}-error` : ''}`,
      },
      message: message ? (
        <span className="field-error" id={`${id}-error`}>
          {message}
        </span>
      ) : null,
    };
  };
}

export function ExperimentForm({
  initial,
  editing,
  lockProfile,
  profiles,
  studios,
  profileStudio,
  error,
  busy,
  onSave,
  onCancel,
}: {
  initial: ExperimentDraft;
  /** Editing a stopped experiment: its name stays. */
  editing: boolean;
  /** The profile it runs on stays (chosen once; a promotion or a delete frees it). */
  lockProfile: boolean;
  /** The app's profiles, each with the experiment it runs already, if any. */
  profiles: { id: string; experiment?: string }[];
  studios: string[];
  /** The studio of the chosen profile, what "the profile's own rules" are. */
  profileStudio: (profile: string) => string | undefined;
  error: ErrorBody | undefined;
  busy: boolean;
  onSave: (draft: ExperimentDraft) => void;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState(initial);
  const said = useSaid(error);
  const set = (changes: Partial<ExperimentDraft>) => setDraft((d) => ({ ...d, ...changes }));
  const setVariant = (i: number, changes: Partial<VariantDraft>) =>
    setDraft((d) => ({ ...d, variants: d.variants.map((v, j) => (j === i ? { ...v, ...changes } : v)) }));
  const setParam = (i: number, k: number, changes: Partial<ParamDraft>) =>
    setVariant(i, {
      params: (draft.variants[i]?.params ?? []).map((p, j) => (j === k ? { ...p, ...changes } : p)),
    });
  const percents = shares(draft.variants.map((v) => v.weight));
  const ownStudio = profileStudio(draft.profile);

  function submit(event: FormEvent) {
    event.preventDefault();
    onSave(draft);
  }

  const title = editing ? `Change the experiment ${initial.id}` : 'New experiment';
  const name = said('id', 'experiment-id');
  const parameter = said('uniqueIdParameter', 'experiment-shopper');
  const profileSaid = said('experiment', 'experiment-profile');
  const variantsSaid = said('variants', 'experiment-variants');
  return (
    <form className="card setup-form experiment-form" onSubmit={submit} aria-label={title}>
      <h2>{title}</h2>
      <div className="field">
        <label htmlFor="experiment-profile">Query profile</label>
        <select
          {...profileSaid.control}
          value={draft.profile}
          disabled={lockProfile}
          onChange={(e) => set({ profile: e.target.value })}
          required
          // biome-ignore lint/a11y/noAutofocus: the form opens on request; its first field takes the focus
          autoFocus={!editing}
        >
          <option value="">choose one</option>
          {profiles.map((p) => (
            <option
              key={p.id}
              value={p.id}
              disabled={p.experiment !== undefined && p.experiment !== initial.id}
            >
              {p.experiment && p.experiment !== initial.id ? `${p.id} (runs ${p.experiment})` : p.id}
            </option>
          ))}
        </select>
        <p className="hint" id="experiment-profile-hint">
          The searches made through this profile are split between the variants. A profile runs one experiment
          at a time.
        </p>
        {profileSaid.message}
      </div>
      <div className="field">
        <label htmlFor="experiment-id">Experiment name</label>
        <input
          {...name.control}
          value={draft.id}
          readOnly={editing}
          onChange={(e) => {
            set({ id: e.target.value });
          }}
          required
          maxLength={128}
          autoComplete="off"
          placeholder="sort-by-popularity"
        />
        <p className="hint" id="experiment-id-hint">
          A short name for the reports: letters, digits, - _ and . only. It cannot be changed later.
        </p>
        {name.message}
      </div>
      <div className="field">
        <label htmlFor="experiment-description">What it tests</label>
        <input
          id="experiment-description"
          aria-describedby="experiment-description-hint"
          value={draft.description}
          onChange={(e) => set({ description: e.target.value })}
          maxLength={2000}
        />
        <p className="hint" id="experiment-description-hint">
          A note for the team, such as “Do shoppers buy more when popular products come first?”
        </p>
      </div>
      <div className="field">
        <label htmlFor="experiment-shopper">Shopper parameter</label>
        <input
          {...parameter.control}
          value={draft.uniqueIdParameter}
          onChange={(e) => set({ uniqueIdParameter: e.target.value })}
          maxLength={100}
          autoComplete="off"
        />
        <p className="hint" id="experiment-shopper-hint">
          The part of the shop's search request that says who is searching, such as a customer or visitor
          number. The same shopper always lands in the same variant, so nobody sees the shop change between
          searches. A search without it gets the first variant and is not counted.
        </p>
        {parameter.message}
      </div>
      <p className="hint" id="experiment-variants-hint">
        The first variant is the control: usually the profile as it is, to compare the others with.
      </p>
      {variantsSaid.message}
      {draft.variants.map((v, i) => (
        <VariantFields
          // biome-ignore lint/suspicious/noArrayIndexKey: variants are edited in place, by their place
          key={i}
          index={i}
          variant={v}
          share={percents[i] ?? null}
          studios={studios}
          ownStudio={ownStudio}
          said={said}
          removable={draft.variants.length > 2}
          onChange={(changes) => setVariant(i, changes)}
          onParam={(k, changes) => setParam(i, k, changes)}
          onRemove={() => set({ variants: draft.variants.filter((_v, j) => j !== i) })}
        />
      ))}
      <div className="actions">
        <button
          type="button"
          onClick={() =>
            set({ variants: [...draft.variants, { ...newVariant(draft.variants.length), weight: '50' }] })
          }
          disabled={draft.variants.length >= 20}
        >
          Add a variant
        </button>
      </div>
      {error && (
        <p className="error" role="alert">
          {error.errors?.length
            ? error.errors.map((e) => plainMessage(e.field, e.message, labelOf(e.field))).join(' ')
            : error.message}{' '}
          Nothing was saved.
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {editing ? 'Save changes' : 'Create experiment'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function VariantFields({
  index,
  variant,
  share,
  studios,
  ownStudio,
  said,
  removable,
  onChange,
  onParam,
  onRemove,
}: {
  index: number;
  variant: VariantDraft;
  share: number | null;
  studios: string[];
  ownStudio: string | undefined;
  said: ReturnType<typeof useSaid>;
  removable: boolean;
  onChange: (changes: Partial<VariantDraft>) => void;
  onParam: (k: number, changes: Partial<ParamDraft>) => void;
  onRemove: () => void;
}) {
  const base = `variant-${index}`;
  const at = `variants[${index}]`;
  const name = said(`${at}.name`, `${base}-name`);
  const id = said(`${at}.id`, `${base}-id`);
  const weight = said(`${at}.weight`, `${base}-weight`);
  const studio = said(`${at}.studio`, `${base}-studio`);
  const legend = `Variant ${index + 1}${index === 0 ? ' (the control)' : ''}`;
  return (
    <fieldset className="variant" aria-label={legend}>
      <legend>{legend}</legend>
      <div className="param-row variant-head">
        <div className="field">
          <label htmlFor={`${base}-name`}>Name</label>
          <input
            {...name.control}
            value={variant.name}
            onChange={(e) => {
              const typed = e.target.value;
              // The short id follows the name while it is what the name makes.
              onChange({
                name: typed,
                ...(variant.id === idFrom(variant.name) ? { id: idFrom(typed) } : {}),
              });
            }}
            maxLength={200}
          />
          <p className="hint" id={`${base}-name-hint`}>
            How reports call it.
          </p>
          {name.message}
        </div>
        <div className="field">
          <label htmlFor={`${base}-id`}>Short id</label>
          <input
            {...id.control}
            value={variant.id}
            onChange={(e) => onChange({ id: e.target.value })}
            required
            maxLength={128}
          />
          <p className="hint" id={`${base}-id-hint`}>
            Sent to the shop with each answer, to tell the variants apart.
          </p>
          {id.message}
        </div>
        <div className="field">
          <label htmlFor={`${base}-weight`}>Share of shoppers</label>
          <input
            {...weight.control}
            value={variant.weight}
            onChange={(e) => onChange({ weight: e.target.value })}
            inputMode="decimal"
          />
          <p className="hint" id={`${base}-weight-hint`}>
            {share === null
              ? 'A number, weighed against the others’.'
              : `${Math.round(share * 10) / 10} % of shoppers.`}
          </p>
          {weight.message}
        </div>
      </div>
      <div className="field">
        <label htmlFor={`${base}-studio`}>Rules and rewrites from</label>
        <select
          {...studio.control}
          value={variant.studio}
          onChange={(e) => onChange({ studio: e.target.value })}
        >
          <option value="">
            {ownStudio ? `the profile's own studio (${ownStudio})` : "the profile's own"}
          </option>
          {studios
            .filter((s) => s !== ownStudio)
            .map((s) => (
              <option key={s} value={s}>
                the studio {s}
              </option>
            ))}
        </select>
        <p className="hint" id={`${base}-studio-hint`}>
          Another studio's published rules and rewrites, to test them before they go live for everyone.
        </p>
        {studio.message}
      </div>
      <label className="inline">
        <input
          type="checkbox"
          checked={variant.rewrites}
          onChange={(e) => onChange({ rewrites: e.target.checked })}
        />
        Apply query rewrites (synonyms, misspellings, …)
      </label>
      <div>
        <p className="hint">
          Solr parameter changes (for experts): set on this variant's searches whatever the shopper sends,
          such as sort = popularity desc.
        </p>
        {variant.params.map((p, k) => {
          const row = `${base}-param-${k}`;
          const key = said(`${at}.params[${k}].key`, `${row}-key`);
          const value = said(`${at}.params[${k}].value`, `${row}-value`);
          const n = k + 1;
          return (
            <fieldset
              className="param-row param-change"
              // biome-ignore lint/suspicious/noArrayIndexKey: rows are edited in place, by their place
              key={k}
              aria-label={`Parameter change ${n} of ${legend}`}
            >
              <div className="field">
                <label htmlFor={`${row}-key`}>Parameter {n}</label>
                <input
                  {...key.control}
                  value={p.key}
                  onChange={(e) => onParam(k, { key: e.target.value })}
                  autoComplete="off"
                />
                <span className="visually-hidden" id={`${row}-key-hint`}>
                  A Solr parameter, such as sort or rows.
                </span>
                {key.message}
              </div>
              <div className="field">
                <label htmlFor={`${row}-value`}>Value {n}</label>
                <input
                  {...value.control}
                  value={p.policy === 'remove' ? '' : p.value}
                  disabled={p.policy === 'remove'}
                  onChange={(e) => onParam(k, { value: e.target.value })}
                  autoComplete="off"
                />
                <span className="visually-hidden" id={`${row}-value-hint`}>
                  Its value.
                </span>
                {value.message}
              </div>
              <div className="field">
                <label htmlFor={`${row}-policy`}>How {n}</label>
                <select
                  id={`${row}-policy`}
                  value={p.policy}
                  onChange={(e) => onParam(k, { policy: e.target.value as Policy })}
                >
                  {POLICY_WORDS.map(([policy, words]) => (
                    <option key={policy} value={policy}>
                      {words}
                    </option>
                  ))}
                </select>
              </div>
              <button
                type="button"
                onClick={() => onChange({ params: variant.params.filter((_p, j) => j !== k) })}
                aria-label={`Remove parameter change ${n} of ${legend}`}
              >
                Remove
              </button>
            </fieldset>
          );
        })}
        <button
          type="button"
          onClick={() => onChange({ params: [...variant.params, { key: '', value: '', policy: 'replace' }] })}
        >
          Add a parameter change
        </button>
      </div>
      {removable && (
        <div className="actions">
          <button type="button" onClick={onRemove}>
            Remove {legend.toLowerCase()}
          </button>
        </div>
      )}
    </fieldset>
  );
}
