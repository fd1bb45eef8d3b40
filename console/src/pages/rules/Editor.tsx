// The editor of a rule or rewrite: every field as an input (the common fields, a rule's
// conditions, schedule, precedence, tags, groups and segments, the type's own fields), the
// API's messages beside each field, a JSON view of what is sent (for experts), the "Fires
// for" hint, publishing, the staging-vs-live difference and the versions to restore.
import { type FormEvent, useCallback, useEffect, useRef, useState } from 'react';
import { type ErrorBody, errorOf, mayEdit, messageFor, type Session } from '../../api/client';
import { Loading } from '../../components/Loading';
import { TableScroll } from '../../components/TableScroll';
import { Link, navigate } from '../../router';
import { plainMessage, plainMessageFor, typeLabel } from '../../words';
import { createEntry, type Edit, getEntry, KEPT_BY_THE_SERVICE, moveEntry, updateEntry } from './calls';
import { FiresFor } from './FiresFor';
import { type FieldTexts, KindFields, kindFieldNames, textsOf, valuesOf } from './KindFields';
import {
  bodyOf,
  NEW_RULE_SETTINGS,
  RuleFields,
  type RuleSettings,
  rewriteBodyOf,
  rewriteSettingsOf,
  SETTING_FIELDS,
  SETTING_LABELS,
  settingsOf,
} from './RuleFields';
import { type Entry, isRule, type Kind, kindFields, TYPES, titleOf } from './shared';
import { Versions } from './Versions';

/** The fields whose staging value differs from the live one: [field, staging, live]. */
function differences(rule: Entry): [string, string, string][] {
  const live: Record<string, unknown> = rule.liveContent ?? {};
  const staging: Record<string, unknown> = rule;
  return Object.keys(live)
    .filter((name) => JSON.stringify(live[name]) !== JSON.stringify(staging[name]))
    .map((name) => [name, JSON.stringify(staging[name], null, 1), JSON.stringify(live[name], null, 1)]);
}

const COMMON_FIELDS = ['name', 'type', 'description', ...SETTING_FIELDS];

/** The labels of the fields the form shows, and of others the API may name in a message. */
const FIELD_LABELS: Record<string, string> = {
  name: 'Name',
  type: 'Type',
  description: 'Description',
  conditions: 'Conditions',
  ...SETTING_LABELS,
  effectiveStart: 'Start',
  effectiveEnd: 'End',
  externalId: 'External id',
};

/** What each type does, in a line, under the type's choice. */
const TYPE_HINTS: Record<string, string> = {
  blockList: 'Hides the products listed from the results.',
  boostList: 'Moves the products listed up the results.',
  buryList: 'Moves the products listed down the results.',
  pinned: 'Puts products at fixed places at the top of the results.',
  redirect: 'Sends the shopper to a page instead of the results.',
  banner: 'Shows a banner above (or beside) the results.',
  filterList: 'Shows only the products with one of the values; the others are left out.',
  boostAttributes: 'Moves the products with a brand, a colour or any attribute up or down the results.',
  setParams: 'Sets Solr parameters of the search itself (for experts).',
  responseValue: "Sends data with the results for the shop's page to use: a campaign's title, a layout.",
  setFacetList: 'Sets which facets the page offers, and in which order.',
  synonym: 'Words that mean the same, searched for together.',
  misspelling: 'A misspelt word, searched as its correction.',
  phrase: 'Words kept together as a phrase.',
  headTail: 'A query searched as its main word (the head).',
  removeWords: "Words dropped from the shopper's query.",
};

/** A field named by the API, as the form would call it. */
function fieldLabel(field: string): string {
  return FIELD_LABELS[field] ?? FIELD_LABELS[field.replace(/\[\d+\]$/, '')] ?? field;
}

export function Editor({
  kind,
  studio,
  id,
  session,
}: {
  kind: Kind;
  studio: string;
  id: string | undefined;
  session: Session;
}) {
  const [rule, setRule] = useState<Entry>();
  // The rule's own fields (name, conditions), when it is one.
  const asRule = rule && isRule(rule) ? rule : undefined;
  const [type, setType] = useState<Entry['type']>(TYPES[kind][0]!);
  const [texts, setTexts] = useState<FieldTexts>(() => textsOf(TYPES[kind][0]!));
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [settings, setSettings] = useState<RuleSettings>(NEW_RULE_SETTINGS);
  const [error, setError] = useState<ErrorBody>();
  const [saved, setSaved] = useState<string>();
  const editable = mayEdit(session, 'rules', studio);
  const root = kind === 'rules' ? '/rules' : '/rewrites';
  const form = useRef<HTMLFormElement>(null);
  const focused = useRef<string>(undefined);

  // The entry the form last showed: a new rule, once saved, is not read again when the address
  // turns to its id, which would put back what was saved over what was typed meanwhile.
  const inForm = useRef<Entry>(undefined);

  /** The form shows `loaded` (as read, saved or restored). */
  const show = useCallback((loaded: Entry) => {
    inForm.current = loaded;
    setRule(loaded);
    setType(loaded.type);
    setTexts(textsOf(loaded.type, kindFields(loaded)));
    setDescription(loaded.description ?? '');
    if (isRule(loaded)) {
      setName(loaded.name);
      setSettings(settingsOf(loaded));
    } else setSettings(rewriteSettingsOf(loaded));
  }, []);

  useEffect(() => {
    if (id === undefined) return;
    const held = inForm.current;
    if (held && (held.id === id || (isRule(held) && held.externalId === id))) return;
    getEntry(kind, studio, id)
      .then(show)
      .catch((e) => setError(errorOf(e)));
  }, [kind, studio, id, show]);

  // The form is there for a new entry, or once the entry asked for is read (not the one before).
  const ready =
    id === undefined || (rule !== undefined && (rule.id === id || (isRule(rule) && rule.externalId === id)));
  // The first field has the focus once the form is there (once per rule: not after a save).
  useEffect(() => {
    const which = id ?? 'new';
    if (!ready || focused.current === which) return;
    focused.current = which;
    form.current?.querySelector<HTMLElement>('input:enabled, select:enabled, textarea:enabled')?.focus();
  }, [ready, id]);

  /** What Save sends: the form's every field, in the API's shape. */
  function editOfForm(): Edit {
    const own = {
      ...(rule ? { ...rule, liveContent: undefined } : {}),
      ...valuesOf(type, texts),
      type,
    };
    // The type's own fields go as typed (a number that is not one too, see valuesOf), for the
    // API to check and name beside the field; the fields set here have the schema's types.
    return kind === 'rules'
      ? { kind, body: { ...own, name, description, ...bodyOf(settings, asRule) } }
      : { kind, body: { ...own, description, ...rewriteBodyOf(settings) } };
  }
  /** What Save sends, without what the service keeps itself. */
  const formBody = () =>
    Object.fromEntries(Object.entries(editOfForm().body).filter(([n]) => !KEPT_BY_THE_SERVICE.has(n)));
  const jsonView = () => JSON.stringify(formBody(), null, 2);

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const edit = editOfForm();
    try {
      const answer = await (rule ? updateEntry(studio, rule.id, edit) : createEntry(studio, edit));
      setError(undefined);
      setSaved(`Saved ${titleOf(answer)}`);
      show(answer);
      if (!rule) {
        focused.current = answer.id;
        navigate(`${root}/${encodeURIComponent(answer.id)}?studio=${encodeURIComponent(studio)}`, true);
      }
    } catch (e) {
      setSaved(undefined);
      setError(errorOf(e));
    }
  }

  async function publish(current: Entry) {
    try {
      show(await moveEntry(kind, studio, current.id, 'publish'));
      setSaved('Published');
    } catch (e) {
      setError(errorOf(e));
    }
  }

  const field = (name: string) => {
    const message = plainMessageFor(error, name, FIELD_LABELS[name] ?? name);
    return message ? (
      <span className="field-error" id={`${name}-error`}>
        {message}
      </span>
    ) : null;
  };
  // Messages about no field shown here (a check across fields, a conflict) go below the form.
  const shown = [
    ...(kind === 'rules' ? COMMON_FIELDS : ['type', 'description', 'tags', 'effectiveStart', 'effectiveEnd']),
    ...kindFieldNames(type),
  ];
  const otherMessages = error?.errors?.filter(
    (e) => !shown.some((f) => e.field === f || e.field.startsWith(`${f}.`) || e.field.startsWith(`${f}[`)),
  );

  const back = (
    <p>
      <Link to={`${root}?studio=${encodeURIComponent(studio)}`}>Back to the list</Link>
    </p>
  );
  // A rule on its way is not a new one: no empty form until it is there.
  if (!ready) {
    return (
      <>
        {back}
        {error ? (
          <p className="error" role="alert">
            {error.message}
          </p>
        ) : (
          <Loading what={kind === 'rules' ? 'the rule' : 'the rewrite'} />
        )}
      </>
    );
  }

  return (
    <>
      {back}
      <form
        ref={form}
        className="card"
        onSubmit={save}
        aria-label={rule ? `Edit ${titleOf(rule)}` : `New ${kind === 'rules' ? 'rule' : 'rewrite'}`}
      >
        <fieldset disabled={!editable} className="editor">
          <legend className="visually-hidden">{kind === 'rules' ? 'Rule' : 'Rewrite'}</legend>
          {kind === 'rules' && (
            <div className="field">
              <label htmlFor="rule-name">Name</label>
              <input
                id="rule-name"
                name="name"
                value={name}
                onChange={(e) => setName(e.target.value)}
                aria-invalid={!!messageFor(error, 'name')}
                aria-describedby="name-error"
              />
              {field('name')}
            </div>
          )}
          <div className="field">
            <label htmlFor="rule-type">Type</label>
            <select
              id="rule-type"
              name="type"
              value={type}
              disabled={rule !== undefined}
              aria-describedby="rule-type-hint type-error"
              onChange={(e) => {
                setType(e.target.value as Entry['type']);
                setTexts(textsOf(e.target.value));
              }}
            >
              {TYPES[kind].map((t) => (
                <option key={t} value={t}>
                  {typeLabel(t)}
                </option>
              ))}
            </select>
            <p className="hint" id="rule-type-hint">
              {TYPE_HINTS[type] ?? ''}
            </p>
            {field('type')}
          </div>
          <div className="field">
            <label htmlFor="rule-description">Description</label>
            <input
              id="rule-description"
              name="description"
              value={description}
              onChange={(e) => setDescription(e.target.value)}
              aria-describedby="rule-description-hint description-error"
            />
            <p className="hint" id="rule-description-hint">
              A note for the team: why it is there, until when, who asked.
            </p>
            {field('description')}
          </div>
          <KindFields type={type} texts={texts} onChange={setTexts} error={error} />
          {kind === 'rewrites' && (
            <RuleFields rewrite settings={settings} onChange={setSettings} error={error} />
          )}
          {kind === 'rules' && (
            <RuleFields
              settings={settings}
              onChange={setSettings}
              error={error}
              firesFor={
                <FiresFor studio={studio} ruleId={asRule?.id} draft={formBody()} queries={settings.queries} />
              }
            />
          )}
          <details>
            <summary>The {kind === 'rules' ? 'rule' : 'rewrite'} as JSON (for experts)</summary>
            <pre className="json">{jsonView()}</pre>
          </details>
          {otherMessages && otherMessages.length > 0 && (
            <p className="error" role="alert">
              {otherMessages.map((e) => plainMessage(e.field, e.message, fieldLabel(e.field))).join(' ')}
            </p>
          )}
          {error && !error.errors && (
            <p className="error" role="alert">
              {error.message}
            </p>
          )}
          {saved && <p role="status">{saved}</p>}
          {editable && (
            <div className="toolbar">
              <button type="submit" className="primary">
                Save
              </button>
              {rule && !rule.markedForDeletion && rule.publishState !== 'PUBLISHED' && (
                <button type="button" onClick={() => publish(rule)}>
                  Publish
                </button>
              )}
            </div>
          )}
        </fieldset>
      </form>
      {rule && rule.publishState === 'PUBLISHED_WITH_DRAFT_EDITS' && (
        <section className="card" aria-label="Staging and live">
          <h2>Staging and live</h2>
          <TableScroll label="What differs between staging and live">
            <table>
              <caption className="visually-hidden">What differs between staging and live</caption>
              <thead>
                <tr>
                  <th scope="col">Field</th>
                  <th scope="col">Staging</th>
                  <th scope="col">Live</th>
                </tr>
              </thead>
              <tbody>
                {differences(rule).map(([name, staging, live]) => (
                  <tr key={name}>
                    <th scope="row">{name}</th>
                    <td>
                      <pre>{staging}</pre>
                    </td>
                    <td>
                      <pre>{live}</pre>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        </section>
      )}
      {rule && (
        <Versions
          kind={kind}
          studio={studio}
          entry={rule}
          editable={editable}
          onRestored={(restored) => {
            show(restored);
            setError(undefined);
            setSaved(undefined);
          }}
        />
      )}
    </>
  );
}
