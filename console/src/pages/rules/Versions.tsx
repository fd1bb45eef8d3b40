// A rule's or rewrite's versions: its history events, newest first (when, who, what changed in
// words), each with "Restore this version", asked first in the page's dialog. A restore makes
// the version's content the staging content again (`POST …/history/{historyId}/restore`); live
// stays until the next publish, and the restore is itself a version to go back from.
import { useEffect, useState } from 'react';
import { type ErrorBody, errorOf } from '../../api/client';
import { useConfirm } from '../../components/Confirm';
import { Loading } from '../../components/Loading';
import { TableScroll } from '../../components/TableScroll';
import { tell } from '../../components/undo';
import { ACTIONS, actorName } from '../../words';
import { type HistoryEvent, historyOf, restoreVersion } from './calls';
import type { Entry, Kind } from './shared';
import { spokenTime } from './when';

/** How many versions the list shows (the newest). */
const SHOWN = 20;

/** The merchandiser's name of a field of the content, for "what changed". */
const FIELD_WORDS: Record<string, string> = {
  name: 'name',
  description: 'description',
  tags: 'tags',
  groups: 'rule groups',
  segments: 'segments',
  precedence: 'precedence',
  'conditions.queries': 'queries',
  'conditions.queryMatch': 'how the queries match',
  'conditions.fieldValues': "shopper's filters",
  'conditions.queryProfiles': 'query profiles',
  'conditions.effectiveStart': 'start',
  'conditions.effectiveEnd': 'end',
  effectiveStart: 'start',
  effectiveEnd: 'end',
  input: 'input',
  synonyms: 'synonyms',
  misspelling: 'misspelling',
  correction: 'correction',
  phrase: 'phrase',
  query: 'query',
  head: 'head',
  words: 'words',
  deleted: 'deletion mark',
  fieldName: 'field name',
  fieldValues: 'values',
  pinnedValues: 'pinned products',
  boost: 'boost',
  url: 'redirect URL',
  bannerUrl: 'banner URL',
  zone: 'zone',
};

type Content = Record<string, unknown>;

/** The staging content an event recorded, as a restore of it would bring back. */
function contentOf(event: HistoryEvent): Content | undefined {
  const recorded = (event.after ?? event.before) as { staging?: Content } | undefined;
  return recorded?.staging ?? undefined;
}

/** The fields of a content, `conditions` by its own fields. */
function flat(content: Content | undefined): Map<string, string> {
  const fields = new Map<string, string>();
  for (const [name, value] of Object.entries(content ?? {})) {
    if (name === 'conditions' && value && typeof value === 'object')
      for (const [inner, v] of Object.entries(value)) fields.set(`conditions.${inner}`, JSON.stringify(v));
    else fields.set(name, JSON.stringify(value));
  }
  return fields;
}

/** The fields whose value differs between two contents, in words ("queries, tags"). */
function changedFields(before: Content | undefined, after: Content | undefined): string[] {
  const a = flat(before);
  const b = flat(after);
  const names = [...new Set([...a.keys(), ...b.keys()])].filter((n) => a.get(n) !== b.get(n));
  return names.map((n) => FIELD_WORDS[n] ?? n);
}

/** What the event did, in words: "Edited: queries, tags". */
function whatChanged(event: HistoryEvent): string {
  const action = ACTIONS[event.action] ?? event.action;
  if (event.action !== 'update' && event.action !== 'restore-version') return action;
  const before = (event.before as { staging?: Content } | undefined)?.staging;
  const after = (event.after as { staging?: Content } | undefined)?.staging;
  const changed = changedFields(before, after);
  return changed.length ? `${action}: ${changed.join(', ')}` : `${action} (no change)`;
}

/** Whether a content is the entry's staging content now (no use restoring it). */
function sameAsNow(content: Content, entry: Entry): boolean {
  const now: Content = entry;
  const fields = Object.keys(content).filter((n) => n !== 'deleted');
  const pick = (c: Content) => Object.fromEntries(fields.map((n) => [n, c[n]]));
  return changedFields(pick(content), pick(now)).length === 0;
}

export function Versions({
  kind,
  studio,
  entry,
  editable,
  onRestored,
}: {
  kind: Kind;
  studio: string;
  entry: Entry;
  editable: boolean;
  onRestored: (entry: Entry) => void;
}) {
  const [events, setEvents] = useState<{ version: string; list: HistoryEvent[] }>();
  const [error, setError] = useState<ErrorBody>();
  const confirm = useConfirm();
  const what = kind === 'rules' ? 'rule' : 'rewrite';

  // Read again whenever the entry changes (a save, a publish, a restore is a new version).
  useEffect(() => {
    let current = true;
    historyOf(kind, studio, entry.id, SHOWN)
      .then((page) => {
        if (current) setEvents({ version: entry.lastModified, list: page.content });
      })
      .catch((e) => {
        if (current) setError(errorOf(e));
      });
    return () => {
      current = false;
    };
  }, [kind, studio, entry.id, entry.lastModified]);

  async function restore(event: HistoryEvent) {
    const when = spokenTime(event.at);
    const confirmed = await confirm({
      title: `Restore the version of ${when}?`,
      message: (
        <>
          Its content becomes the {what}'s draft again (staging). Shoppers see it only once you publish it;
          until then the live {what} stays as it is. The version you have now stays in this list.
        </>
      ),
      confirm: 'Restore',
    });
    if (!confirmed) return;
    try {
      const restored = await restoreVersion(kind, studio, entry.id, event.id);
      setError(undefined);
      onRestored(restored);
      tell(`Restored the version of ${when}. Publish to make it live; the version before is in Versions.`);
    } catch (e) {
      setError(errorOf(e));
    }
  }

  return (
    <section className="card" aria-labelledby="versions-title">
      <h2 id="versions-title">Versions</h2>
      <p className="hint">
        Every change of this {what}, newest first. Restoring a version makes it the draft again; publish it to
        make it live.
      </p>
      {error && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
      {events === undefined ? (
        !error && <Loading what="the versions" />
      ) : (
        <TableScroll label="Versions">
          <table className="versions">
            <caption className="visually-hidden">Versions of the {what}</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What changed</th>
                <th scope="col">
                  <span className="visually-hidden">Restore</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {events.list.map((event) => {
                const content = contentOf(event);
                const current = content !== undefined && sameAsNow(content, entry);
                return (
                  <tr key={event.id}>
                    <td>
                      <time dateTime={event.at}>{spokenTime(event.at)}</time>
                    </td>
                    <td>{actorName(event.actor)}</td>
                    <td>{whatChanged(event)}</td>
                    <td className="actions">
                      {content === undefined ? null : current ? (
                        <span className="hint">As now</span>
                      ) : (
                        editable && (
                          <button
                            type="button"
                            onClick={() => restore(event)}
                            aria-label={`Restore this version, of ${spokenTime(event.at)}`}
                          >
                            Restore this version
                          </button>
                        )
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}
