// Rules and Rewrites: the listing (filters, sort and paging kept in the URL), per-row
// publishing and bulk publishing, the conflicts of each rule; the editor is rules/Editor.
import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import { api, type ErrorBody, errorOf, mayEdit, type Session } from '../api/client';
import { type ConfirmRequest, useConfirm } from '../components/Confirm';
import { Loading } from '../components/Loading';
import { NO_PAGE, PagedTable, type PageInfo } from '../components/PagedTable';
import { offerUndo } from '../components/undo';
import { Link, navigate, setQuery, useLocation } from '../router';
import { actorName, plural, stateLabel, typeLabel } from '../words';
import {
  type BulkStatus,
  bulkStatus,
  deleteEntry,
  getEntry,
  type ListingQuery,
  listEntries,
  moveEntry,
  startBulkPublish,
  type Transition,
  undoDelete,
  undoPublishedDeletion,
  undoUnpublish,
} from './rules/calls';
import { type Entry, isRule, type Kind, type Rule, TYPES, titleOf } from './rules/shared';
import { TryQuery } from './TryQuery';

// The editor comes in a chunk of its own, with the date picker and tag inputs it uses.
const Editor = lazy(() => import('./rules/Editor').then((m) => ({ default: m.Editor })));

/**
 * The listing's query from the page's URL (filters, sort and page, 20 a page unless it says).
 * Its texts go as they are: a value the API does not take is the API's to refuse, and the page
 * shows its message.
 */
function listingQuery(url: URLSearchParams): ListingQuery {
  const numberOf = (name: string) => (url.has(name) ? Number(url.get(name)) : undefined);
  return {
    searchQuery: url.get('searchQuery') ?? undefined,
    types: url.getAll('types'),
    publishState: (url.get('publishState') ?? undefined) as ListingQuery['publishState'],
    sort: url.getAll('sort') as ListingQuery['sort'],
    page: numberOf('page'),
    size: numberOf('size') ?? 20,
  };
}

/** The studios the user may open; undefined while they are asked for. */
function useStudios(session: Session): string[] | undefined {
  const own = session.role === 'merchandiser' ? session.studios : undefined;
  const [studios, setStudios] = useState<string[] | undefined>(own);
  useEffect(() => {
    if (own) return;
    api.GET('/api/studios').then(({ data }) => setStudios(data ? data.map((s) => s.id) : []));
  }, [own]);
  return studios;
}

export function RulesPage({ session, kind }: { session: Session; kind: Kind }) {
  const { path, query } = useLocation();
  const studios = useStudios(session);
  const studio = query.get('studio') ?? studios?.[0];
  const title = kind === 'rules' ? 'Rules' : 'Rewrites';
  const root = kind === 'rules' ? '/rules' : '/rewrites';
  const rest = path.slice(root.length).replace(/^\//, '');
  return (
    <>
      <h1>{title}</h1>
      <div className="toolbar">
        <label>
          Studio
          <select
            value={studio ?? ''}
            onChange={(event) => navigate(`${root}?studio=${encodeURIComponent(event.target.value)}`)}
          >
            {studios?.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
      </div>
      {studios === undefined ? (
        <Loading what="the studios" />
      ) : studio === undefined ? (
        <div className="empty-state" role="status">
          <p>
            <strong>No studio yet.</strong> A studio holds the rules and rewrites of one shop, or of one part
            of it (a country, a language); the shop's searches apply the rules of their studio.
          </p>
          {session.role === 'admin' ? (
            <Link className="button-link" to="/studios?new=1">
              Create a studio
            </Link>
          ) : (
            <p>Ask an admin to create one, or to give you one to work in.</p>
          )}
        </div>
      ) : rest === '' ? (
        <Listing kind={kind} studio={studio} session={session} />
      ) : (
        <Suspense fallback={<Loading what="the editor" />}>
          <Editor
            kind={kind}
            studio={studio}
            id={rest === 'new' ? undefined : decodeURIComponent(rest)}
            session={session}
          />
        </Suspense>
      )}
    </>
  );
}

function Listing({ kind, studio, session }: { kind: Kind; studio: string; session: Session }) {
  const { query } = useLocation();
  const [rows, setRows] = useState<Entry[]>();
  const [page, setPage] = useState<PageInfo>(NO_PAGE);
  const [error, setError] = useState<ErrorBody>();
  const editable = mayEdit(session, 'rules', studio);
  const confirm = useConfirm();
  const root = kind === 'rules' ? '/rules' : '/rewrites';
  const search = query.toString();
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [bulk, setBulk] = useState<BulkStatus & { total: number }>();
  // Bulk publishing is offered for rules (the rewrites' bulk takes other operations).
  const bulkable = editable && kind === 'rules';

  async function publishSelected() {
    const ids = [...selected];
    try {
      // The start answers only the operation's id; its status is asked until it ends.
      const operationId = await startBulkPublish(studio, ids);
      let status: BulkStatus = {
        operationId,
        status: 'PENDING',
        counts: { published: 0, failed: 0 },
        errors: [],
      };
      setBulk({ ...status, total: ids.length });
      while (status.status === 'PENDING' || status.status === 'RUNNING') {
        await new Promise((resolve) => setTimeout(resolve, 300));
        status = await bulkStatus(studio, operationId);
        setBulk({ ...status, total: ids.length });
      }
      setSelected(new Set());
      await load();
    } catch (e) {
      setError(errorOf(e));
    }
  }

  const load = useCallback(async () => {
    try {
      const data = await listEntries(kind, studio, listingQuery(new URLSearchParams(search)));
      setRows(data.content);
      setPage(data.page);
      setError(undefined);
    } catch (e) {
      setError(errorOf(e));
    }
  }, [kind, studio, search]);
  useEffect(() => {
    load();
  }, [load]);

  async function act(rule: Entry, action: Transition) {
    try {
      await moveEntry(kind, studio, rule.id, action);
      await load();
    } catch (e) {
      setError(errorOf(e));
    }
  }

  /**
   * A change shoppers would notice, asked first in a dialog that says what happens, then made
   * with the entry as it is read just before (what Undo puts back), then offered for undoing.
   */
  async function guarded(
    rule: Entry,
    ask: ConfirmRequest,
    change: () => Promise<unknown>,
    toast: { done: string; undone: string; undo: (before: Entry) => Promise<void> },
  ) {
    if (!(await confirm(ask))) return;
    try {
      const before = await getEntry(kind, studio, rule.id);
      await change();
      await load();
      offerUndo({
        done: toast.done,
        undone: toast.undone,
        undo: async () => {
          try {
            await toast.undo(before);
          } finally {
            await load();
          }
        },
      });
    } catch (e) {
      setError(errorOf(e));
    }
  }

  function remove(rule: Entry) {
    const name = nameOf(kind, rule);
    const effect = kind === 'rules' ? 'Shoppers stop seeing it' : 'Searches stop being rewritten by it';
    return guarded(
      rule,
      {
        title: `Delete ${name}?`,
        message: rule.published
          ? `${effect} once the deletion is published; until then it stays live, shown as deleted, and Restore brings it back.`
          : 'It was never published, so shoppers never saw it. It is removed; Undo, offered for a few seconds, creates it again with the same content.',
        confirm: 'Delete',
      },
      () => deleteEntry(kind, studio, rule.id),
      {
        done: rule.published ? `Marked ${name} for deletion.` : `Deleted ${name}.`,
        undone: `${capitalized(name)} is back.`,
        undo: (before) => undoDelete(kind, studio, before),
      },
    );
  }

  function unpublish(rule: Entry) {
    const name = nameOf(kind, rule);
    const effect =
      kind === 'rules' ? 'Shoppers stop seeing it at once.' : 'Searches stop being rewritten by it at once.';
    return guarded(
      rule,
      {
        title: `Unpublish ${name}?`,
        message:
          rule.publishState === 'PUBLISHED_WITH_DRAFT_EDITS'
            ? `${effect} It stays here as a draft, with its edits that were not published yet; Undo, offered for a few seconds, puts the live version back as it was.`
            : `${effect} It stays here as a draft; Undo, offered for a few seconds, publishes it again.`,
        confirm: 'Unpublish',
      },
      () => moveEntry(kind, studio, rule.id, 'unpublish'),
      {
        done: `Unpublished ${name}.`,
        undone: `${capitalized(name)} is live again.`,
        undo: (before) => undoUnpublish(kind, studio, before),
      },
    );
  }

  function publishDeletion(rule: Entry) {
    const name = nameOf(kind, rule);
    return guarded(
      rule,
      {
        title: `Publish the deletion of ${name}?`,
        message: `${kind === 'rules' ? 'Shoppers stop seeing it' : 'Searches stop being rewritten by it'} at once, and it is removed. Undo, offered for a few seconds, creates it again with its live content and publishes it.`,
        confirm: 'Publish deletion',
      },
      () => moveEntry(kind, studio, rule.id, 'publish'),
      {
        done: `Deleted ${name} from the live site.`,
        undone: `${capitalized(name)} is live again.`,
        undo: (before) => undoPublishedDeletion(kind, studio, before),
      },
    );
  }

  const sort = query.get('sort') ?? '';
  const filtered = ['searchQuery', 'types', 'publishState'].some((name) => query.get(name));
  return (
    <>
      <form className="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Search
          <input
            type="search"
            defaultValue={query.get('searchQuery') ?? ''}
            onChange={(e) => setQuery({ searchQuery: e.target.value, page: undefined })}
          />
        </label>
        <label>
          Type
          <select
            value={query.get('types') ?? ''}
            onChange={(e) => setQuery({ types: e.target.value, page: undefined })}
          >
            <option value="">any</option>
            {TYPES[kind].map((t) => (
              <option key={t} value={t}>
                {typeLabel(t)}
              </option>
            ))}
          </select>
        </label>
        <label>
          State
          <select
            value={query.get('publishState') ?? ''}
            onChange={(e) => setQuery({ publishState: e.target.value, page: undefined })}
          >
            <option value="">any</option>
            <option value="DRAFT">Draft</option>
            <option value="PUBLISHED">Published</option>
            <option value="PUBLISHED_WITH_DRAFT_EDITS">Published, with draft edits</option>
          </select>
        </label>
        <label>
          Sort
          <select value={sort} onChange={(e) => setQuery({ sort: e.target.value })}>
            <option value="">default</option>
            <option value="name,asc">name ↑</option>
            <option value="name,desc">name ↓</option>
            <option value="lastModified,desc">last modified, newest first</option>
            <option value="precedence,desc">precedence</option>
          </select>
        </label>
        {editable && (
          <button
            type="button"
            className="primary"
            onClick={() => navigate(`${root}/new?studio=${encodeURIComponent(studio)}`)}
          >
            New {kind === 'rules' ? 'rule' : 'rewrite'}
          </button>
        )}
      </form>
      {error && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
      {bulkable && (
        <div className="toolbar">
          <button type="button" disabled={selected.size === 0} onClick={publishSelected}>
            Publish selected ({selected.size})
          </button>
          {bulk && (
            <label>
              Bulk publish: {bulk.status.toLowerCase()}, {bulk.counts.published ?? 0} published,{' '}
              {bulk.counts.failed ?? 0} failed of {bulk.total}
              <progress max={bulk.total} value={(bulk.counts.published ?? 0) + (bulk.counts.failed ?? 0)} />
            </label>
          )}
        </div>
      )}
      <PagedTable
        caption={`${kind === 'rules' ? 'Rules' : 'Rewrites'} in ${studio}`}
        columns={[
          ...(bulkable
            ? [
                <span key="selected" className="visually-hidden">
                  Selected
                </span>,
              ]
            : []),
          'Name',
          'Type',
          'State',
          'Last modified',
          ...(kind === 'rules' ? ['Conflicts'] : []),
          'Actions',
        ]}
        items={rows}
        page={page}
        empty={filtered ? `No ${kind} match these filters.` : `No ${kind} in ${studio} yet.`}
        what={kind}
        count={(n) => plural(n, kind === 'rules' ? 'rule' : 'rewrite')}
        row={(rule) => (
          <tr key={rule.id}>
            {bulkable && (
              <td>
                <input
                  type="checkbox"
                  aria-label={`Select ${titleOf(rule)}`}
                  checked={selected.has(rule.id)}
                  onChange={(e) => {
                    const next = new Set(selected);
                    if (e.target.checked) next.add(rule.id);
                    else next.delete(rule.id);
                    setSelected(next);
                  }}
                />
              </td>
            )}
            <td>
              <Link to={`${root}/${encodeURIComponent(rule.id)}?studio=${encodeURIComponent(studio)}`}>
                {titleOf(rule)}
              </Link>
            </td>
            <td>{typeLabel(rule.type)}</td>
            <td>{stateLabel(rule)}</td>
            <td>
              {new Date(rule.lastModified).toLocaleString()} by{' '}
              <span title={rule.lastModifiedBy}>{actorName(rule.lastModifiedBy)}</span>
            </td>
            {kind === 'rules' && <td>{isRule(rule) && <Conflicts rule={rule} studio={studio} />}</td>}
            <td className="actions">
              {editable && !rule.markedForDeletion && rule.publishState !== 'PUBLISHED' && (
                <button
                  type="button"
                  aria-label={`Publish ${titleOf(rule)}`}
                  onClick={() => act(rule, 'publish')}
                >
                  Publish
                </button>
              )}{' '}
              {editable && rule.published && (
                <button
                  type="button"
                  aria-label={`Unpublish ${titleOf(rule)}`}
                  onClick={() => unpublish(rule)}
                >
                  Unpublish
                </button>
              )}{' '}
              {editable && !rule.markedForDeletion && (
                <button type="button" aria-label={`Delete ${titleOf(rule)}`} onClick={() => remove(rule)}>
                  Delete
                </button>
              )}
              {editable && rule.markedForDeletion && (
                <>
                  <button
                    type="button"
                    aria-label={`Restore ${titleOf(rule)}`}
                    onClick={() => act(rule, 'restore')}
                  >
                    Restore
                  </button>{' '}
                  <button
                    type="button"
                    aria-label={`Publish the deletion of ${titleOf(rule)}`}
                    onClick={() => publishDeletion(rule)}
                  >
                    Publish deletion
                  </button>
                </>
              )}
            </td>
          </tr>
        )}
      />
      {kind === 'rules' && <TryQuery studio={studio} />}
    </>
  );
}

/** A rule's conflicts in the listing: each other rule, linked, and why they act against each other. */
function Conflicts({ rule, studio }: { rule: Rule; studio: string }) {
  const conflicts = rule.conflicts ?? [];
  if (conflicts.length === 0) return <span>none</span>;
  return (
    <details className="conflicts">
      <summary>
        <span className="warning">
          {conflicts.length}
          {rule.conflictsTruncated ? '+' : ''} {conflicts.length === 1 ? 'conflict' : 'conflicts'}
        </span>
      </summary>
      <ul aria-label={`Conflicts of ${titleOf(rule)}`}>
        {conflicts.map((c) => (
          <li key={c.id}>
            <Link to={`/rules/${encodeURIComponent(c.id)}?studio=${encodeURIComponent(studio)}`}>
              {c.name}
            </Link>{' '}
            ({typeLabel(c.type)}): {c.reason}
          </li>
        ))}
        {rule.conflictsTruncated && <li>and more (the listing stops counting at its cap)</li>}
      </ul>
    </details>
  );
}

/** How a dialog or toast names an entry: `the rule "Kettle banner"`, `the synonyms rewrite "sofa, couch"`. */
function nameOf(kind: Kind, entry: Entry): string {
  return kind === 'rules'
    ? `the rule "${titleOf(entry)}"`
    : `the ${typeLabel(entry.type).toLowerCase()} rewrite "${titleOf(entry)}"`;
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
