// Search clusters: where the shop's Solr is. An admin adds one with a form (a SolrCloud by its
// ZooKeeper address, or a single Solr server by its URL, with the user name and password Solr
// asks for), checked before it is stored; the check's steps are listed in plain words, passed
// or failed. The password is write-only: never shown, kept when its field is left empty.
import { Loader } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { api, type ErrorBody, errorOf, mayEdit, type Session } from '../api/client';
import type { components } from '../api/schema';
import { useConfirm } from '../components/Confirm';
import { described, Field, FormError } from '../components/Field';
import { Loading } from '../components/Loading';
import { CreateButton, useLoadedList } from '../components/SetupParts';
import { TableScroll } from '../components/TableScroll';
import { tell } from '../components/undo';
import { setQuery, useLocation } from '../router';

type Cluster = components['schemas']['SearchCluster'];
type Status = components['schemas']['SearchClusterStatus'];
type Step = Status['steps'][number];
type Node = components['schemas']['SearchClusterNode'];
type Body = components['schemas']['SearchClusterBody'];
type NewBody = components['schemas']['NewSearchClusterBody'];

/** What each step of the check makes sure of, in plain words. */
const STEP_WORDS: Record<Step['step'], string> = {
  'zookeeper-connect': 'ZooKeeper answers at this address',
  'solrcloud-state': 'ZooKeeper holds a SolrCloud under this path',
  'live-nodes': 'Solr servers are running in the cluster',
  'solr-node': 'A Solr server answers and accepts the user name and password',
};
/** What a failed step means, in plain words (the service's own message follows it). */
function failureWords(step: Step): string {
  switch (step.step) {
    case 'zookeeper-connect':
      return 'searchdeck could not reach ZooKeeper at this address.';
    case 'solrcloud-state':
      return 'ZooKeeper answered, but holds no SolrCloud under this path: is the part after the last / right?';
    case 'live-nodes':
      return 'No Solr server is running in this SolrCloud.';
    case 'solr-node':
      return /credentials/.test(step.message)
        ? 'Solr refused the user name and password.'
        : 'No Solr server answered searchdeck.';
  }
}
const CLOUD_STEPS: Step['step'][] = ['zookeeper-connect', 'solrcloud-state', 'live-nodes', 'solr-node'];

const FIELDS = {
  id: 'Short id',
  connectString: 'Address',
  'authConfig.username': 'User name',
  'authConfig.password': 'Password',
  authConfig: 'Sign-in',
};

/** A check as the page shows it: running (with the steps it will take), or its steps. */
type Check = { running: Step['step'][] } | { steps: Step[]; ok: boolean; message?: string };

/** The check from an answer: the steps of a passed check, or of a refused one (details.steps). */
function checkOf(answer: Status | ErrorBody): Check {
  if ('steps' in answer) return { ok: true, steps: answer.steps };
  const details = (answer as { details?: { steps?: Step[] } }).details;
  return { ok: false, steps: details?.steps ?? [], message: answer.message };
}

// The list holds what the API answers; its schema types a cluster in more detail.
const readClusters = () => api.GET('/api/searchCluster') as Promise<{ data?: Cluster[]; error?: unknown }>;

export function ClustersPage({ session }: { session: Session }) {
  const { query } = useLocation();
  const { items: clusters, error, setError, load } = useLoadedList<Cluster>(readClusters);
  const [checks, setChecks] = useState<Record<string, Check>>({});
  const [nodes, setNodes] = useState<Record<string, Node[] | ErrorBody>>({});
  const confirm = useConfirm();
  const editable = mayEdit(session, 'platform');
  const creating = editable && query.has('new');
  const editing = editable ? query.get('edit') : null;

  async function listNodes(id: string) {
    const { data, error } = await api.GET('/api/searchCluster/{id}/nodes', { params: { path: { id } } });
    setNodes((n) => ({ ...n, [id]: data ?? errorOf(error) }));
  }
  async function check(cluster: Cluster) {
    setChecks((c) => ({ ...c, [cluster.id]: { running: cluster.cloud ? CLOUD_STEPS : ['solr-node'] } }));
    const { data, error } = await api.GET('/api/searchCluster/{id}/status', {
      params: { path: { id: cluster.id } },
    });
    setChecks((c) => ({ ...c, [cluster.id]: checkOf(data ?? errorOf(error)) }));
  }
  async function remove(cluster: Cluster) {
    const confirmed = await confirm({
      title: `Delete the search cluster "${cluster.id}"?`,
      message:
        'searchdeck forgets how to reach it (Solr itself and its data stay as they are). Query profiles that use it stop answering until they are given another cluster.',
      confirm: 'Delete cluster',
    });
    if (!confirmed) return;
    let answer = await api.DELETE('/api/searchCluster/{id}', { params: { path: { id: cluster.id } } });
    if (answer.response.status === 409) {
      const force = await confirm({
        title: `Other things depend on "${cluster.id}"`,
        message: `${errorOf(answer.error).message ?? ''} Delete it anyway? They stop working with it.`,
        confirm: 'Delete anyway',
      });
      if (!force) return;
      answer = await api.DELETE('/api/searchCluster/{id}', {
        params: { path: { id: cluster.id }, query: { force: true } },
      });
    }
    if (answer.error) return setError(errorOf(answer.error));
    setError(undefined);
    tell(`Deleted the search cluster "${cluster.id}".`);
    await load();
  }

  return (
    <>
      <h1>Search clusters</h1>
      <p className="empty-state">
        A search cluster tells searchdeck where the shop's Solr is: a SolrCloud through its ZooKeeper, or a
        single Solr server. Query profiles search in a collection of one.
      </p>
      {editable && !creating && <CreateButton label="Add a search cluster" />}
      {creating && (
        <ClusterForm
          onDone={async (saved, steps) => {
            setQuery({ new: undefined });
            if (saved) {
              tell(`Added the search cluster "${saved.id}".`);
              if (steps) setChecks((c) => ({ ...c, [saved.id]: steps }));
              await load();
            }
          }}
        />
      )}
      <FormError error={error} />
      {clusters === undefined && !error ? (
        <Loading what="the search clusters" />
      ) : clusters?.length === 0 ? (
        <p role="status">No search cluster yet.</p>
      ) : (
        <TableScroll label="Search clusters">
          <table>
            <caption className="visually-hidden">Search clusters</caption>
            <thead>
              <tr>
                <th scope="col">Cluster</th>
                <th scope="col">Where</th>
                <th scope="col">Signs in as</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {clusters?.map((c) => (
                <tr key={c.id}>
                  <td>{c.id}</td>
                  <td>
                    {c.cloud ? 'SolrCloud, ZooKeeper at ' : 'Solr server at '}
                    <code>{c.connectString}</code>
                  </td>
                  <td>
                    {c.authConfig.authType === 'BASIC'
                      ? c.authConfig.username
                      : c.authConfig.authType === 'KERBEROS'
                        ? `Kerberos (${c.authConfig.principal ?? ''})`
                        : 'nobody (no sign-in)'}
                  </td>
                  <td>
                    <div className="actions">
                      <button type="button" aria-label={`Check ${c.id}`} onClick={() => check(c)}>
                        Check
                      </button>
                      <button
                        type="button"
                        aria-label={`Live nodes of ${c.id}`}
                        onClick={() => listNodes(c.id)}
                      >
                        Live nodes
                      </button>
                      {editable && c.authConfig.authType !== 'KERBEROS' && (
                        <button
                          type="button"
                          aria-label={`Edit ${c.id}`}
                          onClick={() => setQuery({ edit: c.id, new: undefined })}
                        >
                          Edit
                        </button>
                      )}
                      {editable && (
                        <button type="button" aria-label={`Delete ${c.id}`} onClick={() => remove(c)}>
                          Delete
                        </button>
                      )}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {editing && clusters && (
        <ClusterForm
          key={editing}
          cluster={clusters.find((c) => c.id === editing)}
          onDone={async (saved, steps) => {
            setQuery({ edit: undefined });
            if (saved) {
              tell(`Saved the search cluster "${saved.id}".`);
              if (steps) setChecks((c) => ({ ...c, [saved.id]: steps }));
              await load();
            }
          }}
        />
      )}
      {Object.entries(checks).map(([id, result]) => (
        <section className="card" key={id} aria-label={`Check of ${id}`}>
          <h2>Check of {id}</h2>
          <CheckSteps check={result} />
        </section>
      ))}
      {Object.entries(nodes).map(([id, result]) => (
        <section className="card" key={`nodes-${id}`} aria-label={`Nodes of ${id}`}>
          <h2>Solr servers of {id}</h2>
          {Array.isArray(result) ? (
            <TableScroll label={`Nodes of ${id}`}>
              <table>
                <caption className="visually-hidden">Nodes of {id}</caption>
                <thead>
                  <tr>
                    <th scope="col">Node</th>
                    <th scope="col">Address</th>
                    <th scope="col">State</th>
                  </tr>
                </thead>
                <tbody>
                  {result.map((n) => (
                    <tr key={n.name}>
                      <td>{n.name}</td>
                      <td>{n.baseUrl}</td>
                      <td className={n.state === 'live' ? 'ok' : 'fail'}>{n.state}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          ) : (
            <p className="fail" role="alert">
              {result.message}
            </p>
          )}
        </section>
      ))}
    </>
  );
}

/** The check's steps as a list: each passed (✓) or failed (✗) with what it found; while it runs, the steps to come. */
export function CheckSteps({ check, saving = false }: { check: Check; saving?: boolean }) {
  if ('running' in check) {
    return (
      <div role="status" aria-live="polite">
        <div className="loading">
          <Loader size="sm" aria-hidden="true" />
          <span>Checking…</span>
        </div>
        <ol className="steps" aria-label="Steps of the check">
          {check.running.map((step) => (
            <li key={step}>
              <span aria-hidden="true">·</span>
              <span>{STEP_WORDS[step]}: waiting</span>
            </li>
          ))}
        </ol>
      </div>
    );
  }
  const failed = check.steps.find((s) => !s.ok);
  return (
    <div role={check.ok ? 'status' : 'alert'}>
      <p className={check.ok ? 'ok' : 'fail'}>
        {check.ok
          ? 'Every step passed: searchdeck reaches this Solr.'
          : failed
            ? `The check failed: ${failureWords(failed)}${saving ? ' Nothing was saved.' : ''}`
            : (check.message ?? 'The check failed.')}
      </p>
      <ol className="steps" aria-label="Steps of the check">
        {check.steps.map((s) => (
          <li key={`${s.step} ${s.message}`} className={s.ok ? 'ok' : 'fail'}>
            <span aria-hidden="true">{s.ok ? '✓' : '✗'}</span>
            <span>
              {STEP_WORDS[s.step]}: {s.ok ? 'passed' : 'failed'}
            </span>
            <span className="detail">
              {s.message} ({s.ms} ms)
            </span>
          </li>
        ))}
      </ol>
    </div>
  );
}

/** The form for a new search cluster, or for changing `cluster`. */
function ClusterForm({
  cluster,
  onDone,
}: {
  cluster?: Cluster;
  onDone: (saved?: Cluster, check?: Check) => void;
}) {
  const [cloud, setCloud] = useState(cluster?.cloud ?? true);
  const [signIn, setSignIn] = useState(cluster ? cluster.authConfig.authType === 'BASIC' : true);
  const [checkFirst, setCheckFirst] = useState(true);
  const [error, setError] = useState<ErrorBody>();
  const [check, setCheck] = useState<Check>();
  const hadPassword = cluster?.authConfig.authType === 'BASIC';

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? '').trim();
    const password = String(form.get('password') ?? '');
    const authConfig = signIn
      ? { authType: 'BASIC' as const, username: text('username'), ...(password ? { password } : {}) }
      : { authType: 'NONE' as const };
    setError(undefined);
    setCheck(checkFirst ? { running: cloud ? CLOUD_STEPS : ['solr-node'] } : undefined);
    // A PUT replaces the definition: the settings the form does not show go back as they are.
    const kept = cluster
      ? (({ id: _id, createdAt: _c, updatedAt: _u, authConfig: _a, ...rest }) => rest)(cluster)
      : {};
    // The generated types call the fields with defaults required; the API fills them in.
    const body = { ...kept, connectString: text('connectString'), cloud, authConfig } as Body;
    const query = { validate: checkFirst };
    const answer = cluster
      ? await api.PUT('/api/searchCluster/{id}', { params: { path: { id: cluster.id }, query }, body })
      : await api.POST('/api/searchCluster', {
          params: { query },
          body: { ...body, id: text('id') } as NewBody,
        });
    if (answer.error) {
      const refusal = errorOf(answer.error);
      const steps = (refusal as { details?: { steps?: unknown } }).details?.steps;
      setCheck(Array.isArray(steps) ? checkOf(refusal) : undefined);
      if (!Array.isArray(steps)) setError(refusal);
      return;
    }
    const saved = answer.data as Cluster;
    if (!checkFirst) return onDone(saved);
    // The stored definition passed the check; its steps are asked once more to be shown.
    const status = await api.GET('/api/searchCluster/{id}/status', { params: { path: { id: saved.id } } });
    onDone(saved, checkOf(status.data ?? errorOf(status.error)));
  }

  const title = cluster ? `Edit the search cluster "${cluster.id}"` : 'New search cluster';
  return (
    <form className="card setup-form" onSubmit={save} aria-label={title}>
      <h2>{title}</h2>
      {!cluster && (
        <Field
          id="cluster-id"
          label="Short id"
          hint="How query profiles name this cluster, such as “products”; letters, digits, - _ and . only."
          error={error}
          field="id"
        >
          <input
            {...described('cluster-id', error, 'id')}
            name="id"
            required
            maxLength={128}
            pattern="[A-Za-z0-9._\-]+"
            autoComplete="off"
            // biome-ignore lint/a11y/noAutofocus: the form opens on request; its first field takes the focus
            autoFocus
          />
        </Field>
      )}
      <fieldset className="toolbar">
        <legend>Kind of Solr</legend>
        <label className="inline">
          <input
            type="radio"
            name="kind"
            checked={cloud}
            onChange={() => setCloud(true)}
            // biome-ignore lint/a11y/noAutofocus: an existing cluster's form starts at its first field
            autoFocus={cluster !== undefined}
          />
          SolrCloud (found through ZooKeeper)
        </label>
        <label className="inline">
          <input type="radio" name="kind" checked={!cloud} onChange={() => setCloud(false)} />A single Solr
          server
        </label>
      </fieldset>
      <Field
        id="cluster-address"
        label={cloud ? 'ZooKeeper address (with chroot)' : 'Solr address'}
        hint={
          cloud
            ? 'Each ZooKeeper server as host:port, separated by commas, then the path Solr keeps its data under: zk1:2181,zk2:2181/solr.'
            : 'The Solr server’s URL, such as http://solr1:8983/solr — without user name or password in it.'
        }
        error={error}
        field="connectString"
      >
        <input
          {...described('cluster-address', error, 'connectString')}
          name="connectString"
          required
          maxLength={2048}
          defaultValue={cluster?.connectString}
          autoComplete="off"
          spellCheck={false}
        />
      </Field>
      <label className="inline">
        <input type="checkbox" checked={signIn} onChange={(e) => setSignIn(e.target.checked)} />
        Solr asks for a user name and password
      </label>
      {signIn && (
        <>
          <Field
            id="cluster-username"
            label="User name"
            hint="The Solr user searchdeck signs in as."
            error={error}
            field="authConfig.username"
          >
            <input
              {...described('cluster-username', error, 'authConfig.username')}
              name="username"
              required
              maxLength={256}
              defaultValue={cluster?.authConfig.username}
              autoComplete="off"
            />
          </Field>
          <Field
            id="cluster-password"
            label="Password"
            hint={
              hadPassword
                ? 'Leave empty to keep the stored password. It is never shown.'
                : 'Kept encrypted and never shown again, not even to admins.'
            }
            error={error}
            field="authConfig.password"
          >
            <input
              {...described('cluster-password', error, 'authConfig.password')}
              name="password"
              type="password"
              required={!hadPassword}
              maxLength={1024}
              autoComplete="new-password"
            />
          </Field>
        </>
      )}
      <label className="inline">
        <input type="checkbox" checked={checkFirst} onChange={(e) => setCheckFirst(e.target.checked)} />
        Check that searchdeck reaches this Solr before saving (nothing is saved when a step fails)
      </label>
      <FormError error={error} fields={FIELDS} />
      {check && <CheckSteps check={check} saving />}
      <div className="actions">
        <button type="submit" className="primary" disabled={check !== undefined && 'running' in check}>
          {cluster ? 'Save' : 'Add cluster'}
        </button>
        <button type="button" onClick={() => onDone()}>
          Cancel
        </button>
      </div>
    </form>
  );
}
