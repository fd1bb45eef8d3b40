// The Rules and Rewrites pages' calls of the two interfaces on the `/studios/{studioId}/…`
// paths, through the console's one client: each names its path literally, so the path, query,
// body and answer are those of the OpenAPI document. A refusal throws the common error body.
import { api, dataOrThrow } from '../../api/client';
import type { components, operations, paths } from '../../api/schema';
import type { Entry, Kind } from './shared';

type RulesListing = NonNullable<operations['listRulesInStudio']['parameters']['query']>;
type RewritesListing = NonNullable<operations['listQueryRewritesInStudio']['parameters']['query']>;
/** What the listing asks either interface for: filters, sort and page. */
export type ListingQuery = Pick<
  RulesListing,
  'searchQuery' | 'types' | 'publishState' | 'sort' | 'page' | 'size'
>;
/** A page of either listing. */
export interface Listing {
  content: Entry[];
  page: operations['listRulesInStudio']['responses'][200]['content']['application/json']['page'];
}

type RuleBody = operations['createRuleInStudio']['requestBody']['content']['application/json'];
type RewriteBody = operations['createQueryRewriteInStudio']['requestBody']['content']['application/json'];
/** What the editor saves: a rule's body to the Rules interface, a rewrite's to the Rewrites one. */
export type Edit = { kind: 'rules'; body: RuleBody } | { kind: 'rewrites'; body: RewriteBody };

export type BulkStatus =
  paths['/studios/{studioId}/em-rules/bulk/{operationId}']['get']['responses'][200]['content']['application/json'];

/** A page of the studio's rules (with their conflicts, which the listing shows) or rewrites. */
export async function listEntries(kind: Kind, studio: string, query: ListingQuery): Promise<Listing> {
  const path = { studioId: studio };
  if (kind === 'rules')
    return dataOrThrow(
      api.GET('/studios/{studioId}/em-rules', {
        params: { path, query: { ...query, fields: ['CONFLICTS'] } },
      }),
    );
  // The rewrites sort by fewer keys (no name): one they lack is the API's to refuse, as it does.
  const sort = query.sort as RewritesListing['sort'];
  return dataOrThrow(
    api.GET('/studios/{studioId}/query-rewrites', { params: { path, query: { ...query, sort } } }),
  );
}

/** One rule or rewrite (staging) with its live content. */
export async function getEntry(kind: Kind, studio: string, id: string): Promise<Entry> {
  const params = { path: { studioId: studio, id } };
  return kind === 'rules'
    ? dataOrThrow(api.GET('/studios/{studioId}/em-rules/{id}', { params }))
    : dataOrThrow(api.GET('/studios/{studioId}/query-rewrites/{id}', { params }));
}

/** Creates a draft rule or rewrite. */
export async function createEntry(studio: string, edit: Edit): Promise<Entry> {
  const params = { path: { studioId: studio } };
  return edit.kind === 'rules'
    ? dataOrThrow(api.POST('/studios/{studioId}/em-rules', { params, body: edit.body }))
    : dataOrThrow(api.POST('/studios/{studioId}/query-rewrites', { params, body: edit.body }));
}

/** Replaces a rule's or rewrite's staging content. */
export async function updateEntry(studio: string, id: string, edit: Edit): Promise<Entry> {
  const params = { path: { studioId: studio, id } };
  return edit.kind === 'rules'
    ? dataOrThrow(api.PUT('/studios/{studioId}/em-rules/{id}', { params, body: edit.body }))
    : dataOrThrow(api.PUT('/studios/{studioId}/query-rewrites/{id}', { params, body: edit.body }));
}

/** Deletes a draft; marks a published rule or rewrite for deletion. */
export async function deleteEntry(kind: Kind, studio: string, id: string): Promise<void> {
  const params = { path: { studioId: studio, id } };
  await (kind === 'rules'
    ? dataOrThrow(api.DELETE('/studios/{studioId}/em-rules/{id}', { params }))
    : dataOrThrow(api.DELETE('/studios/{studioId}/query-rewrites/{id}', { params })));
}

export type Transition = 'publish' | 'unpublish' | 'restore';

/** Publishes, unpublishes or restores a rule or rewrite; answers it as it is then. */
export async function moveEntry(
  kind: Kind,
  studio: string,
  id: string,
  transition: Transition,
): Promise<Entry> {
  const params = { path: { studioId: studio, id } };
  if (kind === 'rules') {
    if (transition === 'publish')
      return dataOrThrow(api.POST('/studios/{studioId}/em-rules/{id}/publish', { params }));
    if (transition === 'unpublish')
      return dataOrThrow(api.POST('/studios/{studioId}/em-rules/{id}/unpublish', { params }));
    return dataOrThrow(api.POST('/studios/{studioId}/em-rules/{id}/restore', { params }));
  }
  if (transition === 'publish')
    return dataOrThrow(api.POST('/studios/{studioId}/query-rewrites/{id}/publish', { params }));
  if (transition === 'unpublish')
    return dataOrThrow(api.POST('/studios/{studioId}/query-rewrites/{id}/unpublish', { params }));
  return dataOrThrow(api.POST('/studios/{studioId}/query-rewrites/{id}/restore', { params }));
}

/** Starts publishing the studio's rules `ids` in the background; answers the operation's id. */
export async function startBulkPublish(studio: string, ids: string[]): Promise<string> {
  const started = await dataOrThrow(
    api.POST('/studios/{studioId}/em-rules/bulk', {
      params: { path: { studioId: studio } },
      body: { publish: ids },
    }),
  );
  return started.operationId;
}

/** Where a bulk operation of the studio's rules is. */
export async function bulkStatus(studio: string, operationId: string): Promise<BulkStatus> {
  return dataOrThrow(
    api.GET('/studios/{studioId}/em-rules/bulk/{operationId}', {
      params: { path: { studioId: studio, operationId } },
    }),
  );
}

// What the service keeps of a rule or rewrite beside its content: not sent back when the
// content is saved again (an undo), not shown in the editor's JSON view.
export const KEPT_BY_THE_SERVICE = new Set([
  'id',
  'createdBy',
  'creationDate',
  'lastModifiedBy',
  'lastModified',
  'published',
  'publishState',
  'markedForDeletion',
  'liveContent',
  'conflicts',
  'conflictsTruncated',
  'targetedDocuments',
  'isPendingBulkOperation',
  'stagingSyncStatus',
  'liveSyncStatus',
  'platformSyncStatus',
  'fusionSyncStatus',
]);

/** A content (an entry's staging fields, or its live content) as the interface takes it in a body. */
export function editOf(kind: Kind, content: object): Edit {
  const body = Object.fromEntries(
    Object.entries(content).filter(([name, value]) => !KEPT_BY_THE_SERVICE.has(name) && value !== undefined),
  );
  return kind === 'rules'
    ? { kind, body: { ...body, deleted: false } as RuleBody }
    : { kind, body: { ...body, deleted: false } as RewriteBody };
}

/**
 * Undoes a delete, given the entry as it was read just before: a published one was only marked
 * for deletion, and is restored; a draft was removed, and is created again with the same
 * content (under a new id: the interfaces do not take an id, and its history stays under the old).
 */
export async function undoDelete(kind: Kind, studio: string, before: Entry): Promise<void> {
  if (before.published) await moveEntry(kind, studio, before.id, 'restore');
  else await createEntry(studio, editOf(kind, before));
}

/**
 * Undoes an unpublish, given the entry as it was read just before. One published as it was
 * staged is published again. One with draft edits (or marked for deletion) is put back in
 * three steps: its live content staged and published, then its draft edits staged again (or
 * the mark set again), so live and staging are both as before.
 */
export async function undoUnpublish(kind: Kind, studio: string, before: Entry): Promise<void> {
  if (before.publishState === 'PUBLISHED' && !before.markedForDeletion) {
    await moveEntry(kind, studio, before.id, 'publish');
    return;
  }
  if (!before.liveContent) throw { message: 'its live content is not known' };
  await updateEntry(studio, before.id, editOf(kind, before.liveContent));
  await moveEntry(kind, studio, before.id, 'publish');
  if (before.markedForDeletion) await deleteEntry(kind, studio, before.id);
  else await updateEntry(studio, before.id, editOf(kind, before));
}

/**
 * Undoes the publish of a deletion (which removed the entry), given the entry as it was read
 * just before: its live content created again and published (under a new id).
 */
export async function undoPublishedDeletion(kind: Kind, studio: string, before: Entry): Promise<void> {
  if (!before.liveContent) throw { message: 'its live content is not known' };
  const again = await createEntry(studio, editOf(kind, before.liveContent));
  await moveEntry(kind, studio, again.id, 'publish');
}

export type HistoryEvent = components['schemas']['HistoryEvent'];
/** A page of a rule's or rewrite's history, newest first. */
export interface HistoryPage {
  content: HistoryEvent[];
  page: { size: number; number: number; totalElements: number; totalPages: number };
}

/** A rule's or rewrite's history events, newest first: its versions to go back to. */
export async function historyOf(kind: Kind, studio: string, id: string, size = 20): Promise<HistoryPage> {
  const params = { path: { studioId: studio, id }, query: { size } };
  return kind === 'rules'
    ? dataOrThrow(api.GET('/studios/{studioId}/em-rules/{id}/history', { params }))
    : dataOrThrow(api.GET('/studios/{studioId}/query-rewrites/{id}/history', { params }));
}

/** Makes the staging content a history event recorded the rule's or rewrite's staging again. */
export async function restoreVersion(
  kind: Kind,
  studio: string,
  id: string,
  historyId: string,
): Promise<Entry> {
  const params = { path: { studioId: studio, id, historyId } };
  return kind === 'rules'
    ? dataOrThrow(api.POST('/studios/{studioId}/em-rules/{id}/history/{historyId}/restore', { params }))
    : dataOrThrow(
        api.POST('/studios/{studioId}/query-rewrites/{id}/history/{historyId}/restore', { params }),
      );
}

export type Evaluation =
  operations['evaluateQueryPreviewInStudio']['responses'][200]['content']['application/json'];
type EvaluationRequest =
  operations['evaluateQueryPreviewInStudio']['requestBody']['content']['application/json'];

/** What the studio's rules do to a query (`useStaging`: the staging contents, drafts included). */
export async function evaluate(studio: string, body: EvaluationRequest): Promise<Evaluation> {
  return dataOrThrow(
    api.POST('/studios/{studioId}/em-rules/evaluate', { params: { path: { studioId: studio } }, body }),
  );
}
