// A profile's search-only keys: their ids, a new one (shown once, in this answer only) and
// revoking one. Only an admin changes them; others see the ids.
import { useCallback, useEffect, useState } from 'react';
import { api, type ErrorBody, errorOf } from '../../api/client';
import { useConfirm } from '../../components/Confirm';
import { Loading } from '../../components/Loading';
import { TableScroll } from '../../components/TableScroll';
import { tell } from '../../components/undo';

interface Key {
  id: string;
  createdAt: string;
}

export function Keys({ app, profile, editable }: { app: string; profile: string; editable: boolean }) {
  const [keys, setKeys] = useState<Key[]>();
  const [created, setCreated] = useState<Key & { key: string }>();
  const [error, setError] = useState<ErrorBody>();
  const confirm = useConfirm();
  const path = { app, id: profile };

  const load = useCallback(async () => {
    const { data, error } = await api.GET('/api/apps/{app}/query-profiles/{id}/keys', {
      params: { path: { app, id: profile } },
    });
    if (data) setKeys(data);
    else setError(errorOf(error));
  }, [app, profile]);
  useEffect(() => {
    load();
  }, [load]);

  async function create() {
    const { data, error } = await api.POST('/api/apps/{app}/query-profiles/{id}/keys', {
      params: { path },
    });
    if (!data) return setError(errorOf(error));
    setError(undefined);
    setCreated(data);
    await load();
  }

  async function revoke(keyId: string) {
    const confirmed = await confirm({
      title: `Revoke the key ${keyId} of ${profile}?`,
      message:
        "The shop's searches that send this key are refused at once. This cannot be undone; a new key is a new secret to give the shop.",
      confirm: 'Revoke key',
    });
    if (!confirmed) return;
    const { error } = await api.DELETE('/api/apps/{app}/query-profiles/{id}/keys/{keyId}', {
      params: { path: { ...path, keyId } },
    });
    if (error) return setError(errorOf(error));
    if (created?.id === keyId) setCreated(undefined);
    tell(`Revoked the key ${keyId}.`);
    await load();
  }

  return (
    <section className="card" aria-label={`Search-only keys of ${profile}`}>
      <h2>Search-only keys of {profile}</h2>
      <p>
        A key opens this profile's query endpoint and nothing else: the shop sends it as{' '}
        <code>Authorization: Bearer …</code>.
      </p>
      {created && (
        <div className="secret" role="status">
          <p>
            New key <strong>{created.id}</strong>: copy it now, it is not shown again.
          </p>
          <output aria-label="New key">{created.key}</output>
        </div>
      )}
      {error && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
      {keys === undefined && !error ? (
        <Loading what="the keys" />
      ) : (
        <TableScroll label={`Keys of ${profile}`}>
          <table>
            <caption className="visually-hidden">Keys of {profile}</caption>
            <thead>
              <tr>
                <th scope="col">Key id</th>
                <th scope="col">Created</th>
                {editable && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {keys?.map((k) => (
                <tr key={k.id}>
                  <td>{k.id}</td>
                  <td>{new Date(k.createdAt).toLocaleString()}</td>
                  {editable && (
                    <td>
                      <button type="button" aria-label={`Revoke key ${k.id}`} onClick={() => revoke(k.id)}>
                        Revoke
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {keys?.length === 0 && <p>No key yet.</p>}
      {editable && (
        <button type="button" onClick={create}>
          New key
        </button>
      )}
    </section>
  );
}
