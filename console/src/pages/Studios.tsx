// Studios: the places a shop's rules and rewrites live. Every role sees them; an admin creates,
// renames and deletes them (a studio that still holds rules or rewrites is deleted only when
// the admin confirms a second time, naming that they go with it; one that a query profile or
// experiment uses is not deleted, and the page shows the answer naming them).
import { type FormEvent, useState } from 'react';
import { api, type ErrorBody, errorOf, mayEdit, type Session } from '../api/client';
import type { paths } from '../api/schema';
import { useConfirm } from '../components/Confirm';
import { FormError } from '../components/Field';
import { Loading } from '../components/Loading';
import { CreateButton, NameField, ShortIdField, shortIdFrom, useLoadedList } from '../components/SetupParts';
import { TableScroll } from '../components/TableScroll';
import { tell } from '../components/undo';
import { Link, setQuery, useLocation } from '../router';

type Studio = paths['/api/studios']['get']['responses'][200]['content']['application/json'][number];

/** A studio id from a name: "Shop (English)" → "shop-english". */
const idFrom = (name: string) => shortIdFrom(name, /[^a-z0-9._-]+/g, 128);

const readStudios = () => api.GET('/api/studios');

const FIELDS = { id: 'Short id', name: 'Name' };

export function StudiosPage({ session }: { session: Session }) {
  const { query } = useLocation();
  const { items: studios, error, setError, load } = useLoadedList<Studio>(readStudios);
  const confirm = useConfirm();
  const editable = mayEdit(session, 'platform');
  // ?new: the form for a new studio is open; ?edit=<id>: that studio's form.
  const creating = editable && query.has('new');
  const editing = editable ? query.get('edit') : null;

  async function remove(studio: Studio) {
    const confirmed = await confirm({
      title: `Delete the studio "${studio.name}"?`,
      message:
        'Its API clients stop working at once. A studio that still has rules or rewrites is not deleted without asking again. This cannot be undone.',
      confirm: 'Delete studio',
    });
    if (!confirmed) return;
    let answer = await api.DELETE('/api/studios/{id}', { params: { path: { id: studio.id } } });
    // A studio that a query profile or experiment uses is refused forced or not, its users
    // named (details.users): only a studio's own rules and rewrites are worth a second question.
    if (answer.response.status === 409 && errorOf(answer.error).details?.users === undefined) {
      const force = await confirm({
        title: `"${studio.name}" still has rules or rewrites`,
        message:
          'Deleting the studio deletes them too, drafts and published ones, and the shop stops applying them. This cannot be undone.',
        confirm: 'Delete studio with its rules',
      });
      if (!force) return;
      answer = await api.DELETE('/api/studios/{id}', {
        params: { path: { id: studio.id }, query: { force: true } },
      });
    }
    if (answer.error) return setError(errorOf(answer.error));
    setError(undefined);
    tell(`Deleted the studio "${studio.name}".`);
    await load();
  }

  return (
    <>
      <h1>Studios</h1>
      <p className="empty-state">
        A studio holds the rules and rewrites of one shop, or of one part of it (a country, a language). Query
        profiles name the studio whose rules apply to their searches.
      </p>
      {editable && !creating && <CreateButton label="Create a studio" />}
      {creating && (
        <StudioForm
          onDone={async (saved) => {
            setQuery({ new: undefined });
            if (saved) {
              tell(`Created the studio "${saved.name}".`);
              await load();
            }
          }}
        />
      )}
      <FormError error={error} />
      {studios === undefined && !error ? (
        <Loading what="the studios" />
      ) : studios?.length === 0 ? (
        <p role="status">No studio yet.</p>
      ) : (
        <TableScroll label="Studios">
          <table>
            <caption className="visually-hidden">Studios</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Short id</th>
                <th scope="col">Created</th>
                {editable && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {studios?.map((s) => (
                <tr key={s.id}>
                  <td>
                    <Link to={`/rules?studio=${encodeURIComponent(s.id)}`}>{s.name}</Link>
                  </td>
                  <td>
                    <code>{s.id}</code>
                  </td>
                  <td>{new Date(s.createdAt).toLocaleDateString()}</td>
                  {editable && (
                    <td>
                      <div className="actions">
                        <button
                          type="button"
                          aria-label={`Rename ${s.name}`}
                          onClick={() => setQuery({ edit: s.id, new: undefined })}
                        >
                          Rename
                        </button>
                        <button type="button" aria-label={`Delete ${s.name}`} onClick={() => remove(s)}>
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
      {editing && studios && (
        <StudioForm
          key={editing}
          studio={studios.find((s) => s.id === editing)}
          onDone={async (saved) => {
            setQuery({ edit: undefined });
            if (saved) {
              tell(`Renamed the studio to "${saved.name}".`);
              await load();
            }
          }}
        />
      )}
    </>
  );
}

/** The form for a new studio, or for renaming `studio`. */
function StudioForm({ studio, onDone }: { studio?: Studio; onDone: (saved?: Studio) => void }) {
  const [name, setName] = useState(studio?.name ?? '');
  const [id, setId] = useState('');
  const [idTouched, setIdTouched] = useState(false);
  const [error, setError] = useState<ErrorBody>();
  const [busy, setBusy] = useState(false);
  const shownId = idTouched ? id : idFrom(name);

  async function save(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    const answer = studio
      ? await api.PUT('/api/studios/{id}', { params: { path: { id: studio.id } }, body: { name } })
      : await api.POST('/api/studios', { body: { id: shownId, name } });
    setBusy(false);
    if (answer.error) return setError(errorOf(answer.error));
    onDone(answer.data as Studio);
  }

  const title = studio ? `Rename the studio "${studio.name}"` : 'New studio';
  return (
    <form className="card setup-form" onSubmit={save} aria-label={title}>
      <h2>{title}</h2>
      <NameField id="studio-name" value={name} onChange={setName} error={error} />
      {!studio && (
        <ShortIdField
          id="studio-id"
          value={shownId}
          onChange={(typed) => {
            setIdTouched(true);
            setId(typed);
          }}
          error={error}
          hint="Used in the addresses of the shop's searches and the API; letters, digits, - _ and . only. It cannot be changed later."
          maxLength={128}
          pattern="[A-Za-z0-9._\-]+"
        />
      )}
      <FormError error={error} fields={FIELDS} />
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {studio ? 'Save name' : 'Create studio'}
        </button>
        <button type="button" onClick={() => onDone()}>
          Cancel
        </button>
      </div>
    </form>
  );
}
