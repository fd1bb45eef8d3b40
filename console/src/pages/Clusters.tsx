// Search clusters: the definitions and the step-by-step connectivity check with timings.
import { Loader } from '@mantine/core';
import { useEffect, useState } from 'react';
import { api, type ErrorBody, errorOf, type Session } from '../api/client';
import type { components } from '../api/schema';
import { Loading } from '../components/Loading';
import { TableScroll } from '../components/TableScroll';

type Status = components['schemas']['SearchClusterStatus'];
type Node = components['schemas']['SearchClusterNode'];

export function ClustersPage(_props: { session: Session }) {
  const [clusters, setClusters] = useState<{ id: string; [k: string]: unknown }[]>();
  const [checks, setChecks] = useState<Record<string, Status | ErrorBody | 'running'>>({});
  const [error, setError] = useState<ErrorBody>();
  const [nodes, setNodes] = useState<Record<string, Node[] | ErrorBody>>({});
  useEffect(() => {
    api.GET('/api/searchCluster').then(({ data, error }) => {
      if (data) setClusters(data as unknown as { id: string }[]);
      else setError(errorOf(error));
    });
  }, []);
  async function listNodes(id: string) {
    const { data, error } = await api.GET('/api/searchCluster/{id}/nodes', { params: { path: { id } } });
    setNodes((n) => ({ ...n, [id]: data ?? errorOf(error) }));
  }
  async function check(id: string) {
    setChecks((c) => ({ ...c, [id]: 'running' }));
    const { data, error } = await api.GET('/api/searchCluster/{id}/status', { params: { path: { id } } });
    setChecks((c) => ({ ...c, [id]: data ?? errorOf(error) }));
  }
  return (
    <>
      <h1>Search clusters</h1>
      {error && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
      {clusters === undefined && !error ? (
        <Loading what="the search clusters" />
      ) : (
        <TableScroll label="Search clusters">
          <table>
            <caption className="visually-hidden">Search clusters</caption>
            <thead>
              <tr>
                <th scope="col">Cluster</th>
                <th scope="col">Definition</th>
                <th scope="col">Check</th>
              </tr>
            </thead>
            <tbody>
              {clusters?.map((c) => (
                <tr key={c.id}>
                  <td>{c.id}</td>
                  <td>
                    <pre>{JSON.stringify({ ...c, id: undefined }, null, 1)}</pre>
                  </td>
                  <td>
                    <button type="button" aria-label={`Check ${c.id}`} onClick={() => check(c.id)}>
                      Check
                    </button>{' '}
                    <button
                      type="button"
                      aria-label={`Live nodes of ${c.id}`}
                      onClick={() => listNodes(c.id)}
                    >
                      Live nodes
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {clusters?.length === 0 && <p role="status">No search cluster defined.</p>}
      {Object.entries(nodes).map(([id, result]) => (
        <section className="card" key={`nodes-${id}`} aria-label={`Nodes of ${id}`}>
          <h2>Nodes of {id}</h2>
          {Array.isArray(result) ? (
            <TableScroll label={`Nodes of ${id}`}>
              <table>
                <caption className="visually-hidden">Nodes of {id}</caption>
                <thead>
                  <tr>
                    <th scope="col">Node</th>
                    <th scope="col">Base URL</th>
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
      {Object.entries(checks).map(([id, result]) => (
        <section className="card" key={id} aria-label={`Check of ${id}`}>
          <h2>Check of {id}</h2>
          {result === 'running' ? (
            <div className="loading" role="status">
              <Loader size="sm" aria-hidden="true" />
              <span>Checking…</span>
            </div>
          ) : 'steps' in result ? (
            <CheckSteps status={result as Status} />
          ) : (
            <>
              <p className="fail" role="alert">
                {(result as ErrorBody).message}
              </p>
              {Array.isArray((result as { details?: { steps?: unknown } }).details?.steps) && (
                <CheckSteps status={(result as { details: Status }).details} />
              )}
            </>
          )}
        </section>
      ))}
    </>
  );
}

function CheckSteps({ status }: { status: Pick<Status, 'steps'> }) {
  return (
    <TableScroll label="Check steps">
      <table>
        <caption className="visually-hidden">Check steps</caption>
        <thead>
          <tr>
            <th scope="col">Step</th>
            <th scope="col">Result</th>
            <th scope="col">Time (ms)</th>
            <th scope="col">Message</th>
          </tr>
        </thead>
        <tbody>
          {status.steps.map((s) => (
            <tr key={`${s.step} ${s.message}`}>
              <td>{s.step}</td>
              <td className={s.ok ? 'ok' : 'fail'}>{s.ok ? 'ok' : 'failed'}</td>
              <td>{s.ms}</td>
              <td>{s.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
