// Users (admin only): who may sign in, with which role, for which studios and instances.
import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { api, type ErrorBody, errorOf, type Session } from '../api/client';
import type { paths } from '../api/schema';
import { useConfirm } from '../components/Confirm';
import { Loading } from '../components/Loading';
import { TableScroll } from '../components/TableScroll';
import { tell } from '../components/undo';
import { messagesInWords } from '../words';

type User = paths['/api/users']['get']['responses'][200]['content']['application/json'][number];
type Role = 'admin' | 'merchandiser' | 'viewer';

const list = (text: FormDataEntryValue | null) =>
  String(text ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);

export function UsersPage({ session }: { session: Session }) {
  const [users, setUsers] = useState<User[]>();
  const [error, setError] = useState<ErrorBody>();
  const [status, setStatus] = useState<string>();
  const confirm = useConfirm();
  const load = useCallback(async () => {
    const { data, error } = await api.GET('/api/users');
    if (data) setUsers(data);
    else setError(errorOf(error));
  }, []);
  useEffect(() => {
    if (session.role === 'admin') load();
  }, [load, session.role]);

  if (session.role !== 'admin') {
    return (
      <>
        <h1>Users</h1>
        <p role="status">Only an admin manages users.</p>
      </>
    );
  }

  async function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const { error } = await api.POST('/api/users', {
      body: {
        username: String(form.get('username')),
        password: String(form.get('password')),
        role: String(form.get('role')) as Role,
        studios: list(form.get('studios')),
        typeaheadInstances: list(form.get('instances')),
      },
    });
    if (error) {
      setStatus(undefined);
      return setError(errorOf(error));
    }
    setError(undefined);
    setStatus(`Created ${form.get('username')}`);
    formElement.reset();
    await load();
  }

  async function remove(username: string) {
    const confirmed = await confirm({
      title: `Delete the user "${username}"?`,
      message:
        'They can no longer sign in, and their sessions end at once. This cannot be undone: to let them in again, create the user anew with a new password.',
      confirm: 'Delete user',
    });
    if (!confirmed) return;
    const { error } = await api.DELETE('/api/users/{username}', { params: { path: { username } } });
    if (error) return setError(errorOf(error));
    tell(`Deleted the user "${username}".`);
    await load();
  }

  return (
    <>
      <h1>Users</h1>
      {users === undefined && !error ? (
        <Loading what="the users" />
      ) : (
        <TableScroll label="Users">
          <table>
            <caption className="visually-hidden">Users</caption>
            <thead>
              <tr>
                <th scope="col">Username</th>
                <th scope="col">Role</th>
                <th scope="col">Studios</th>
                <th scope="col">Typeahead instances</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {users?.map((u) => (
                <tr key={u.username}>
                  <td>{u.username}</td>
                  <td>{u.role}</td>
                  <td>{u.studios.join(', ') || '—'}</td>
                  <td>{u.typeaheadInstances.join(', ') || '—'}</td>
                  <td>
                    {u.username !== session.username && (
                      <button
                        type="button"
                        aria-label={`Delete ${u.username}`}
                        onClick={() => remove(u.username)}
                      >
                        Delete
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      <form className="filters card" onSubmit={create} aria-label="New user">
        <label>
          New username
          <input name="username" required autoComplete="off" />
        </label>
        <label>
          New user's password
          <input name="password" type="password" required minLength={8} autoComplete="new-password" />
        </label>
        <label>
          Role
          <select name="role" defaultValue="merchandiser">
            <option>merchandiser</option>
            <option>viewer</option>
            <option>admin</option>
          </select>
        </label>
        <label>
          Studios (comma-separated)
          <input name="studios" />
        </label>
        <label>
          Typeahead instances (comma-separated)
          <input name="instances" />
        </label>
        <button type="submit">Create user</button>
      </form>
      {error && (
        <p className="error" role="alert">
          {messagesInWords(error, {
            username: 'Username',
            password: 'Password',
            role: 'Role',
            studios: 'Studios',
            typeaheadInstances: 'Typeahead instances',
          })}
        </p>
      )}
      {status && <p role="status">{status}</p>}
    </>
  );
}
