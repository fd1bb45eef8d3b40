// "Fires for: …": a few shoppers' queries made from the rule's queries (each query itself, and
// it with a word before it), evaluated by the service on the staging rules
// (`POST /em-rules/evaluate` with `useStaging`), each said to fire the rule or not. The
// service evaluates saved rules only: the hint is of the saved draft, and says so when the
// form's queries or match differ from it. Asked a moment after the typing stops, never
// holding it up; an answer overtaken by newer typing is dropped.
import { useEffect, useState } from 'react';
import { errorOf } from '../../api/client';
import { evaluate } from './calls';
import type { QueryMatch } from './RuleFields';
import type { Rule } from './shared';

/** How long the typing must pause before the service is asked, in milliseconds. */
const PAUSE_MS = 400;

/** The shoppers' queries tried: each of the first two queries, and it with a word before it. */
export function sampleQueries(queries: string[]): string[] {
  return [...new Set(queries.slice(0, 2).flatMap((q) => [q, `best ${q}`]))];
}

/** A moment the rule is in effect at: now, else its start (ahead) or its end (past). */
function momentInEffect(rule: Rule): string | undefined {
  const now = Date.now();
  const { effectiveStart: start, effectiveEnd: end } = rule.conditions;
  if (start && Date.parse(start) > now) return start;
  if (end && Date.parse(end) < now) return end;
  return undefined;
}

/**
 * The shopper the rule's other conditions let through: in a segment of it, through a profile
 * of it, with a filter it asks for, at a moment it is in effect; on the staging rules.
 */
function contextOf(rule: Rule) {
  const at = momentInEffect(rule);
  return {
    useStaging: true,
    segment: rule.segments,
    queryProfile: rule.conditions.queryProfiles,
    filter: rule.conditions.fieldValues.map((f) => `${f.fieldName}:${f.values[0] ?? ''}`),
    ...(at ? { at } : {}),
  };
}

type Outcome = { query: string; fires: boolean }[];

export function FiresFor({
  studio,
  rule,
  queries,
  queryMatch,
}: {
  studio: string;
  /** The rule as saved (undefined: not saved yet). */
  rule: Rule | undefined;
  /** The queries and match as the form has them now. */
  queries: string[];
  queryMatch: QueryMatch;
}) {
  // Each answer with the request it is of: an older one is not shown as the answer.
  const [answer, setAnswer] = useState<{ key: string; outcome?: Outcome; failure?: string }>();
  const samples = sampleQueries(queries);
  // The request in full (and the version it is of), so an effect runs once per new question.
  const key =
    rule === undefined || samples.length === 0
      ? undefined
      : JSON.stringify({ id: rule.id, version: rule.lastModified, samples, context: contextOf(rule) });
  const outcome = key !== undefined && answer?.key === key ? answer.outcome : undefined;
  const failure = key !== undefined && answer?.key === key ? answer.failure : undefined;

  useEffect(() => {
    if (key === undefined) return;
    const {
      id,
      samples: asked,
      context,
    } = JSON.parse(key) as {
      id: string;
      samples: string[];
      context: ReturnType<typeof contextOf>;
    };
    let current = true;
    const timer = setTimeout(async () => {
      try {
        const answers = await Promise.all(asked.map((q) => evaluate(studio, { ...context, q })));
        if (!current) return;
        setAnswer({
          key,
          outcome: asked.map((query, i) => ({ query, fires: answers[i]!.rules.some((r) => r.id === id) })),
        });
      } catch (e) {
        if (current) setAnswer({ key, failure: errorOf(e).message ?? 'the service did not answer' });
      }
    }, PAUSE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [key, studio]);

  const saved = rule?.conditions;
  const unsaved =
    saved !== undefined &&
    (JSON.stringify(saved.queries) !== JSON.stringify(queries) || (saved.queryMatch ?? 'is') !== queryMatch);
  let said: string;
  if (rule === undefined) said = 'Save the draft to see which shoppers’ queries it fires for.';
  else if (queries.length === 0) said = 'Fires for every query (it has no queries).';
  else if (failure) said = `Could not check: ${failure}`;
  else if (outcome === undefined) said = 'Checking…';
  else {
    const fires = outcome.filter((o) => o.fires).map((o) => `“${o.query}”`);
    const not = outcome.filter((o) => !o.fires).map((o) => `“${o.query}”`);
    said = `Fires for: ${fires.length ? fires.join(', ') : 'none of the queries tried'}${
      not.length ? `. Not for: ${not.join(', ')}` : ''
    }.`;
  }
  return (
    <div
      className="fires-for"
      aria-live="polite"
      data-checking={(outcome === undefined && failure === undefined) || undefined}
    >
      <p>{said}</p>
      {rule !== undefined && queries.length > 0 && (
        <p className="hint">
          {unsaved
            ? 'As last saved (staging): save to see your changes to the queries or the match here.'
            : 'As saved (staging), for a shopper its segments, profiles, filters and dates let through.'}
        </p>
      )}
    </div>
  );
}
