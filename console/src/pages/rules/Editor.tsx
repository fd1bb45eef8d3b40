// The editor of a rule or rewrite: the common fields and the type's own fields as inputs,
// the API's messages beside each field, a JSON view of what is sent (advanced), publishing,
// and the staging-vs-live difference.
import { type FormEvent, useEffect, useState } from 'react';
import { type ErrorBody, errorOf, mayEdit, messageFor, type Session } from '../../api/client';
import { Loading } from '../../components/Loading';
import { TableScroll } from '../../components/TableScroll';
import { Link, navigate } from '../../router';
import { plainMessage, plainMessageFor, typeLabel } from '../../words';
import { createEntry, type Edit, getEntry, moveEntry, updateEntry } from './calls';
import { type FieldTexts, KindFields, kindFieldNames, textsOf, valuesOf } from './KindFields';
import { type Entry, isRule, type Kind, kindFields, TYPES, titleOf } from './shared';

/** The fields whose staging value differs from the live one: [field, staging, live]. */
function differences(rule: Entry): [string, string, string][] {
  const live: Record<string, unknown> = rule.liveContent ?? {};
  const staging: Record<string, unknown> = rule;
  return Object.keys(live)
    .filter((name) => JSON.stringify(live[name]) !== JSON.stringify(staging[name]))
    .map((name) => [name, JSON.stringify(staging[name], null, 1), JSON.stringify(live[name], null, 1)]);
}

const COMMON_FIELDS = ['name', 'type', 'description', 'conditions'];

/** The labels of the fields the form shows, and of others the API may name in a message. */
const FIELD_LABELS: Record<string, string> = {
  name: 'Name',
  type: 'Type',
  description: 'Description',
  conditions: 'Queries',
  'conditions.queries': 'Queries',
  'conditions.effectiveStart': 'Start',
  'conditions.effectiveEnd': 'End',
  effectiveStart: 'Start',
  effectiveEnd: 'End',
  tags: 'Tags',
  groups: 'Groups',
  segments: 'Segments',
  precedence: 'Precedence',
  externalId: 'External id',
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
  const [error, setError] = useState<ErrorBody>();
  const [saved, setSaved] = useState<string>();
  const editable = mayEdit(session, 'rules', studio);
  const root = kind === 'rules' ? '/rules' : '/rewrites';

  useEffect(() => {
    if (id === undefined) return;
    getEntry(kind, studio, id)
      .then((loaded) => {
        setRule(loaded);
        setType(loaded.type);
        setTexts(textsOf(loaded.type, kindFields(loaded)));
      })
      .catch((e) => setError(errorOf(e)));
  }, [kind, studio, id]);

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const queries = String(form.get('queries') ?? '')
      .split(',')
      .map((q) => q.trim())
      .filter(Boolean);
    const own = {
      ...(rule ? { ...rule, liveContent: undefined } : {}),
      ...valuesOf(type, texts),
      type,
    };
    const description = String(form.get('description') ?? '');
    // The type's own fields go as typed (a number that is not one too, see valuesOf), for the
    // API to check and name beside the field; the fields set here have the schema's types.
    const edit: Edit =
      kind === 'rules'
        ? {
            kind,
            body: {
              ...own,
              name: String(form.get('name')),
              description,
              conditions: { ...(asRule?.conditions ?? {}), queries },
            },
          }
        : { kind, body: { ...own, description } };
    try {
      const answer = await (rule ? updateEntry(studio, rule.id, edit) : createEntry(studio, edit));
      setError(undefined);
      setSaved(`Saved ${titleOf(answer)}`);
      setRule(answer);
      if (!rule)
        navigate(`${root}/${encodeURIComponent(answer.id)}?studio=${encodeURIComponent(studio)}`, true);
    } catch (e) {
      setSaved(undefined);
      setError(errorOf(e));
    }
  }

  async function publish(current: Entry) {
    try {
      setRule(await moveEntry(kind, studio, current.id, 'publish'));
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
  const shown = [...COMMON_FIELDS, ...kindFieldNames(type)];
  const otherMessages = error?.errors?.filter(
    (e) => !shown.some((f) => e.field === f || e.field.startsWith(`${f}.`) || e.field.startsWith(`${f}[`)),
  );

  const back = (
    <p>
      <Link to={`${root}?studio=${encodeURIComponent(studio)}`}>Back to the list</Link>
    </p>
  );
  // A rule on its way is not a new one: no empty form until it is there.
  if (
    id !== undefined &&
    (rule === undefined || (rule.id !== id && (!isRule(rule) || rule.externalId !== id)))
  ) {
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
                defaultValue={asRule?.name ?? ''}
                key={`name-${rule?.id}`}
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
              aria-describedby="type-error"
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
            {field('type')}
          </div>
          <div className="field">
            <label htmlFor="rule-description">Description</label>
            <input
              id="rule-description"
              name="description"
              defaultValue={rule?.description ?? ''}
              key={`d-${rule?.id}`}
              aria-describedby="description-error"
            />
            {field('description')}
          </div>
          {kind === 'rules' && (
            <div className="field">
              <label htmlFor="rule-queries">Queries (comma-separated)</label>
              <input
                id="rule-queries"
                name="queries"
                defaultValue={asRule?.conditions.queries.join(', ') ?? ''}
                key={`q-${rule?.id}`}
                aria-describedby="conditions-error"
              />
              {field('conditions')}
            </div>
          )}
          <KindFields type={type} texts={texts} onChange={setTexts} error={error} />
          <details>
            <summary>The {typeLabel(type).toLowerCase()} fields as JSON (for experts)</summary>
            <pre>{JSON.stringify(valuesOf(type, texts), null, 2)}</pre>
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
    </>
  );
}
