// "Fires for: …": a few shoppers' queries made from the rule's queries (each query itself, and
// it with a word before it), evaluated by the service on the staging rules with the rule as
// the form has it now in place of its saved content (`POST /em-rules/evaluate` with
// `useStaging` and `draftRule`), each said to fire the rule or not. Asked a moment after the
// typing stops, never holding it up; an answer overtaken by newer typing is dropped.
import { useEffect, useState } from 'react';
import { errorOf } from '../../api/client';
import { evaluate } from './calls';
import type { Rule } from './shared';

/** How long the typing must pause before the service is asked, in milliseconds. */
const PAUSE_MS = 400;

/** The shoppers' queries tried: each of the first two queries, and it with a word before it. */
export function sampleQueries(queries: string[]): string[] {
  return [...new Set(queries.slice(0, 2).flatMap((q) => [q, `best ${q}`]))];
}

/** The rule as the form has it: the body Save would send. */
type Draft = Partial<Pick<Rule, 'segments' | 'conditions'>> & Record<string, unknown>;

/** The id the service gives a rule not saved yet. */
const DRAFT_ID = 'draft';

/** A moment the rule is in effect at: now, else its start (ahead) or its end (past). */
function momentInEffect(rule: Draft): string | undefined {
  const now = Date.now();
  const { effectiveStart: start, effectiveEnd: end } = rule.conditions ?? {};
  if (start && Date.parse(start) > now) return start;
  if (end && Date.parse(end) < now) return end;
  return undefined;
}

/**
 * The shopper the rule's other conditions let through: in a segment of it, through a profile
 * of it, with a filter it asks for, at a moment it is in effect; on the staging rules.
 */
function contextOf(rule: Draft) {
  const at = momentInEffect(rule);
  return {
    useStaging: true,
    segment: rule.segments ?? [],
    queryProfile: rule.conditions?.queryProfiles ?? [],
    filter: (rule.conditions?.fieldValues ?? []).map((f) => `${f.fieldName}:${f.values[0] ?? ''}`),
    ...(at ? { at } : {}),
  };
}

type Outcome = { query: string; fires: boolean }[];

export function FiresFor({
  studio,
  ruleId,
  draft,
  queries,
}: {
  studio: string;
  /** The saved rule's id (undefined: not saved yet). */
  ruleId: string | undefined;
  /** The rule as the form has it now. */
  draft: Draft;
  /** The queries as the form has them now. */
  queries: string[];
}) {
  // Each answer with the request it is of: an older one is not shown as the answer.
  const [answer, setAnswer] = useState<{ key: string; outcome?: Outcome; failure?: string }>();
  const samples = sampleQueries(queries);
  // The request in full, so an effect runs once per new question.
  const key =
    samples.length === 0
      ? undefined
      : JSON.stringify({
          id: ruleId ?? DRAFT_ID,
          samples,
          context: contextOf(draft),
          draftRule: { ...draft, ...(ruleId ? { id: ruleId } : {}) },
        });
  const outcome = key !== undefined && answer?.key === key ? answer.outcome : undefined;
  const failure = key !== undefined && answer?.key === key ? answer.failure : undefined;

  useEffect(() => {
    if (key === undefined) return;
    const {
      id,
      samples: asked,
      context,
      draftRule,
    } = JSON.parse(key) as {
      id: string;
      samples: string[];
      context: ReturnType<typeof contextOf>;
      draftRule: Record<string, unknown>;
    };
    let current = true;
    const timer = setTimeout(async () => {
      try {
        const answers = await Promise.all(asked.map((q) => evaluate(studio, { ...context, q, draftRule })));
        if (!current) return;
        setAnswer({
          key,
          outcome: asked.map((query, i) => ({ query, fires: answers[i]!.rules.some((r) => r.id === id) })),
        });
      } catch (e) {
        if (!current) return;
        const error = errorOf(e);
        // The form's own problems are shown beside its fields when it is saved.
        const formProblem = error.errors?.some((f) => f.field.startsWith('draftRule.'));
        setAnswer({
          key,
          failure: formProblem
            ? 'the form has a problem to fix first (Save names it)'
            : (error.message ?? 'the service did not answer'),
        });
      }
    }, PAUSE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [key, studio]);

  let said: string;
  if (queries.length === 0) said = 'Fires for every query (it has no queries).';
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
      data-checking={(queries.length > 0 && outcome === undefined && failure === undefined) || undefined}
    >
      <p>{said}</p>
      {queries.length > 0 && (
        <p className="hint">
          As the form has it now, beside the other rules as saved (staging), for a shopper its segments,
          profiles, filters and dates let through.
        </p>
      )}
    </div>
  );
}
