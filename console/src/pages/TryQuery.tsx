// "Try a query": the evaluation of a studio's live set, or its staging set, for a query typed in.
import { type FormEvent, useState } from 'react';
import { api, type ErrorBody, errorOf } from '../api/client';
import type { paths } from '../api/schema';
import { FiredRules } from '../components/FiredRules';

type Evaluation =
  paths['/studios/{studioId}/em-rules/evaluate']['post']['responses'][200]['content']['application/json'];

export function TryQuery({ studio }: { studio: string }) {
  const [result, setResult] = useState<Evaluation>();
  const [error, setError] = useState<ErrorBody>();
  async function run(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const { data, error } = await api.POST('/studios/{studioId}/em-rules/evaluate', {
      params: { path: { studioId: studio } },
      body: { q: String(form.get('q')), useStaging: form.get('set') === 'staging', explain: true },
    });
    setResult(data);
    setError(data ? undefined : errorOf(error));
  }
  return (
    <section className="card" aria-label="Try a query">
      <h2>Try a query</h2>
      <form className="filters" onSubmit={run} aria-label="Query to evaluate">
        <label>
          Query
          <input name="q" required />
        </label>
        <label>
          Rule set
          <select name="set" defaultValue="staging">
            <option value="staging">staging</option>
            <option value="live">live</option>
          </select>
        </label>
        <button type="submit">Evaluate</button>
      </form>
      {error && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
      {result && (
        <>
          <p>
            Rewritten query: <strong>{result.rewrittenQuery}</strong>
          </p>
          <FiredRules rules={result.rules} />
          <h3>Parameters for Solr</h3>
          <pre>{JSON.stringify(result.solr, null, 2)}</pre>
        </>
      )}
    </section>
  );
}
