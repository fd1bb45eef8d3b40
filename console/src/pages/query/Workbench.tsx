// The query workbench: a query sent through the real query endpoint of a profile (with the
// signed-in session), its results as product cards with the live rules and, for those who
// may change the profile's studio, with the staging rules (`staging=true`) beside them; from a
// card, a product is pinned, blocked or boosted in a draft rule. Below, for search engineers,
// what the experience layer did (the answer's `fusion`), the parameters Solr received (its
// echo in `responseHeader.params`) and the documents as Solr gave them.
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { api, currentSession, type ErrorBody, errorOf, mayEdit, type Session } from '../../api/client';
import { FiredRules } from '../../components/FiredRules';
import { TableScroll } from '../../components/TableScroll';
import { Link } from '../../router';
import { typeLabel } from '../../words';
import { type Answer, type Doc, idOf, titleOf } from './answer';
import { applyToDraft, type CardAction, MAX_RULE_QUERY } from './draft-rules';
import { Column, type ColumnState, Failure } from './Preview';
import type { Profile } from './ProfileForm';
import { paramsOf } from './params';

const show = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
const IDLE: ColumnState = { status: 'idle' };

/** What a card action did, said to the merchandiser, with the rule to open. */
interface Done {
  text: string;
  rule: { id: string; name: string };
}

const DONE_WORDS: Record<CardAction, string> = {
  pin: 'now comes first',
  block: 'is now hidden',
  boost: 'is now boosted',
};

export function Workbench({ app, profile: profileId }: { app: string; profile: string }) {
  const [profile, setProfile] = useState<Profile>();
  const [session, setSession] = useState<Session>();
  const [live, setLive] = useState<ColumnState>(IDLE);
  const [staging, setStaging] = useState<ColumnState>(IDLE);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<Done>();
  const [failure, setFailure] = useState<ErrorBody>();
  // The last query sent, so that a card action refreshes the staging column with it.
  const sent = useRef<URLSearchParams>(undefined);

  useEffect(() => {
    currentSession().then(setSession);
  }, []);

  const studio = profile?.studio;
  const editable = session !== undefined && studio !== undefined && mayEdit(session, 'rules', studio);

  async function ask(search: URLSearchParams, withStaging: boolean): Promise<ColumnState> {
    const params = new URLSearchParams(search);
    if (withStaging) params.set('staging', 'true');
    const { data, error } = await api.GET('/api/apps/{app}/query/{profile}', {
      params: { path: { app, profile: profileId } },
      querySerializer: () => params.toString(),
    });
    return data
      ? { status: 'done', answer: data as unknown as Answer }
      : { status: 'failed', error: errorOf(error) };
  }

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
    sent.current = search;
    setDone(undefined);
    setFailure(undefined);
    setLive({ status: 'loading' });
    // The profile as it is now (its studio and display fields may have been edited).
    const read = await api.GET('/api/apps/{app}/query-profiles/{id}', {
      params: { path: { app, id: profileId } },
    });
    const current = read.data;
    setProfile(current);
    // Who is signed in decides whether the staging column may be asked for (the first query may
    // come before the page has heard).
    const who = session ?? (await currentSession());
    const mayStage =
      current?.studio !== undefined && who !== undefined && mayEdit(who, 'rules', current.studio);
    if (mayStage) setStaging({ status: 'loading' });
    else setStaging(IDLE);
    const [liveState, stagingState] = await Promise.all([
      ask(search, false),
      mayStage ? ask(search, true) : Promise.resolve(IDLE),
    ]);
    setLive(liveState);
    setStaging(stagingState);
  }

  async function act(action: CardAction, doc: Doc) {
    const id = idOf(doc);
    const search = sent.current;
    const ruleQuery = queryForRules();
    if (studio === undefined || id === undefined || search === undefined || ruleQuery === undefined) return;
    setBusy(true);
    setDone(undefined);
    setFailure(undefined);
    try {
      const change = await applyToDraft(studio, action, ruleQuery, id, profileId);
      const title = titleOf(doc, profile?.display);
      setStaging((before) => ({
        status: 'loading',
        ...(before.status === 'done' ? { before: before.answer } : {}),
      }));
      setDone({
        text: change.unchanged
          ? `“${title}” was already ${action === 'pin' ? 'pinned first' : action === 'block' ? 'hidden' : 'boosted'} for “${ruleQuery}” by the draft rule “${change.rule.name}”.`
          : `“${title}” ${DONE_WORDS[action]} for “${ruleQuery}” in staging: ${change.created ? 'new' : 'added to the'} draft rule “${change.rule.name}”. Shoppers see it once the rule is published.`,
        rule: change.rule,
      });
      setStaging(await ask(search, true));
    } catch (error) {
      setFailure(errorOf(error));
    } finally {
      setBusy(false);
    }
  }

  /** The query rules compare: the shopper's query as the rewrites leave it (staging's, when shown). */
  function queryForRules(): string | undefined {
    const answer =
      staging.status === 'done' ? staging.answer : live.status === 'done' ? live.answer : undefined;
    const query = answer?.fusion.rewrittenQuery.trim();
    return query ? query : undefined;
  }

  const ruleQuery = queryForRules();
  const unavailable =
    ruleQuery === undefined
      ? 'Type a query first: rules act on a query'
      : ruleQuery.length > MAX_RULE_QUERY
        ? `A rule's query has at most ${MAX_RULE_QUERY} characters`
        : undefined;
  const actions = editable ? { run: act, busy, ...(unavailable ? { unavailable } : {}) } : undefined;
  const liveAnswer = live.status === 'done' ? live.answer : undefined;
  const livePositions = new Map<string, number>(
    (liveAnswer?.response?.docs ?? []).map((doc, i) => [idOf(doc) ?? '', i + 1]),
  );
  const asked = live.status !== 'idle';
  return (
    <section className="card workbench" aria-label={`Workbench of ${profileId}`}>
      <h2>Query workbench: {profileId}</h2>
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
        <button type="submit" className="primary" disabled={live.status === 'loading'}>
          Send query
        </button>
      </form>
      {!asked && (
        <p className="hint">Type a query to see the products shoppers get, as they would see them.</p>
      )}
      {done && (
        <p className="preview-done" role="status">
          {done.text}{' '}
          <Link to={`/rules/${encodeURIComponent(done.rule.id)}?studio=${encodeURIComponent(studio ?? '')}`}>
            Open the rule
          </Link>
        </p>
      )}
      {failure && <Failure error={failure} />}
      {asked && (
        <div className="preview-columns">
          <Column
            title="Live"
            hint="What shoppers get now: the published rules."
            state={live}
            display={profile?.display}
            actions={actions}
          />
          {staging.status !== 'idle' ? (
            <Column
              title="Staging"
              hint="What shoppers would get once every draft is published."
              state={staging}
              display={profile?.display}
              actions={actions}
              livePositions={livePositions}
            />
          ) : (
            <section className="preview-column" aria-label="Staging results">
              <h3>Staging</h3>
              <p className="hint">
                {studio === undefined
                  ? 'This profile uses no studio: it has no rules to stage.'
                  : `The drafts of studio ${studio} are shown to those who may change its rules.`}
              </p>
            </section>
          )}
        </div>
      )}
      {liveAnswer && <Details answer={liveAnswer} />}
    </section>
  );
}

/** For search engineers: what the experience layer did and what Solr received and answered (live). */
function Details({ answer }: { answer: Answer }) {
  const { fusion } = answer;
  const docs = answer.response?.docs ?? [];
  const fields = [...new Set(docs.flatMap((d) => Object.keys(d)))].slice(0, 8);
  const received = answer.responseHeader?.params;
  return (
    <details className="workbench-details">
      <summary>Details for search engineers (live): rewrites, rules, what Solr received</summary>
      <p>
        Rewritten query: <strong>{fusion.rewrittenQuery}</strong> (sent by the shopper: {fusion.query}) ·
        answered by {fusion.node}
        {answer.responseHeader?.QTime !== undefined && ` in ${answer.responseHeader.QTime} ms (Solr's QTime)`}
      </p>
      {fusion.redirect && <p>Redirect: {fusion.redirect}</p>}
      {fusion.banners.length > 0 && (
        <p>Banners: {fusion.banners.map((b) => `${b.zone}: ${b.url}`).join('; ')}</p>
      )}
      {fusion.droppedParams.length > 0 && <p>Parameters dropped: {fusion.droppedParams.join(', ')}</p>}
      <div className="workbench-pair">
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
        <div>
          <FiredRules rules={fusion.rules} />
        </div>
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
            Results: {answer.response?.numFound ?? 0} found, {docs.length} shown
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
    </details>
  );
}
