// The query workbench: a query sent through the real query endpoint of a profile (with the
// signed-in session), and what came back: what the experience layer did (the answer's
// `fusion`), the parameters Solr received (its echo in `responseHeader.params`) and the results.
import { type FormEvent, useState } from 'react';
import { api, type ErrorBody, errorOf } from '../../api/client';
import { FiredRules } from '../../components/FiredRules';
import { Loading } from '../../components/Loading';
import { TableScroll } from '../../components/TableScroll';
import { typeLabel } from '../../words';
import { paramsOf } from './params';

interface Fusion {
  query: string;
  rewrittenQuery: string;
  rewrites: { id: string; type: string; from: string; to: string }[];
  rules: { id: string; name: string; type: string; precedence: number }[];
  redirect: string | null;
  banners: { url: string; zone: string }[];
  node: string;
  droppedParams: string[];
}

interface Answer {
  responseHeader?: { QTime?: number; params?: Record<string, unknown> };
  response?: { numFound: number; docs: Record<string, unknown>[] };
  fusion: Fusion;
}

/**
 * What the query endpoint's own failures mean, said before the reason it gives (which names the
 * Solr node, or ZooKeeper when the cluster's live nodes could not be found in time).
 */
const LEADS: Record<string, string> = {
  'solr-timeout': 'The search cluster did not answer in time.',
  'solr-failed': 'The search cluster could not answer this query.',
};

const show = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

export function Workbench({ app, profile }: { app: string; profile: string }) {
  const [answer, setAnswer] = useState<Answer>();
  const [error, setError] = useState<ErrorBody>();
  const [busy, setBusy] = useState(false);

  async function send(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const search = new URLSearchParams({ q: String(form.get('q') ?? '') });
    for (const [name, value] of Object.entries(paramsOf(String(form.get('params') ?? '')))) {
      for (const v of Array.isArray(value) ? value : [value]) search.append(name, v);
    }
    for (const segment of String(form.get('segments') ?? '').split(',')) {
      if (segment.trim()) search.append('segment', segment.trim());
    }
    setBusy(true);
    const { data, error } = await api.GET('/api/apps/{app}/query/{profile}', {
      params: { path: { app, profile } },
      querySerializer: () => search.toString(),
    });
    setBusy(false);
    setAnswer(data as unknown as Answer | undefined);
    setError(data ? undefined : errorOf(error));
  }

  const fusion = answer?.fusion;
  const docs = answer?.response?.docs ?? [];
  const fields = [...new Set(docs.flatMap((d) => Object.keys(d)))].slice(0, 8);
  const received = answer?.responseHeader?.params;
  return (
    <section className="card" aria-label={`Workbench of ${profile}`}>
      <h2>Query workbench: {profile}</h2>
      <form className="filters" onSubmit={send} aria-label="Query to send">
        <label>
          Shopper's query
          <input name="q" required />
        </label>
        <label>
          Segments (comma-separated)
          <input name="segments" />
        </label>
        <label>
          More parameters (name=value, one a line)
          <textarea name="params" rows={2} spellCheck={false} />
        </label>
        <button type="submit" className="primary" disabled={busy}>
          Send query
        </button>
      </form>
      {busy && <Loading what="the answer" />}
      {error && (
        <p className="error" role="alert">
          {error.code !== undefined && LEADS[error.code] && <strong>{LEADS[error.code]} </strong>}
          {error.message} ({error.status} {error.code})
        </p>
      )}
      {fusion && (
        <div aria-live="polite">
          <p>
            Rewritten query: <strong>{fusion.rewrittenQuery}</strong> (sent by the shopper: {fusion.query}) ·
            answered by {fusion.node}
            {answer?.responseHeader?.QTime !== undefined &&
              ` in ${answer.responseHeader.QTime} ms (Solr's QTime)`}
          </p>
          {fusion.redirect && <p>Redirect: {fusion.redirect}</p>}
          {fusion.banners.length > 0 && (
            <p>Banners: {fusion.banners.map((b) => `${b.zone}: ${b.url}`).join('; ')}</p>
          )}
          {fusion.droppedParams.length > 0 && <p>Parameters dropped: {fusion.droppedParams.join(', ')}</p>}
          <div className="diff">
            <TableScroll label="Rewrites applied">
              <table>
                <caption>Rewrites applied</caption>
                <thead>
                  <tr>
                    <th scope="col">Type</th>
                    <th scope="col">From</th>
                    <th scope="col">To</th>
                  </tr>
                </thead>
                <tbody>
                  {fusion.rewrites.map((r) => (
                    <tr key={`${r.id}-${r.from}`}>
                      <td>{typeLabel(r.type)}</td>
                      <td>{r.from}</td>
                      <td>{r.to}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
            <FiredRules rules={fusion.rules} />
          </div>
          <TableScroll label="Parameters Solr received">
            <table>
              <caption>Parameters Solr received</caption>
              <thead>
                <tr>
                  <th scope="col">Parameter</th>
                  <th scope="col">Value</th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(received ?? {}).map(([name, value]) => (
                  <tr key={name}>
                    <th scope="row">{name}</th>
                    <td>
                      <code>{show(value)}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
          {!received && <p>Solr echoed no parameters (its handler's echoParams is off).</p>}
          <TableScroll label="Results">
            <table>
              <caption>
                Results: {answer?.response?.numFound ?? 0} found, {docs.length} shown
              </caption>
              <thead>
                <tr>
                  {fields.map((f) => (
                    <th scope="col" key={f}>
                      {f}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {docs.map((doc, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: documents need not have an id field
                  <tr key={i}>
                    {fields.map((f) => (
                      <td key={f}>{doc[f] === undefined ? '' : show(doc[f])}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        </div>
      )}
    </section>
  );
}
