// A rewrite as rows: the rewrite row with its sort and filter columns, and its search words.
import type { Insertable, Selectable } from 'kysely';
import { searchWords } from '../listing/search-words.js';
import type { RewriteType } from './rewrite.js';
import type { StoredRewriteContent } from './rewrite-content.js';
import { publishState, type StoredRewrite } from './rewrite-record.js';
import type { QueryRewriteTable, QueryRewriteWordTable } from './tables.js';

export type RewriteRow = Selectable<QueryRewriteTable>;
export type RewriteWordRow = Insertable<QueryRewriteWordTable>;

export function toStoredRewrite(row: RewriteRow): StoredRewrite {
  return {
    id: row.id,
    studioId: row.studio_id,
    type: row.type as RewriteType,
    staging: JSON.parse(row.staging) as StoredRewriteContent,
    live: row.live === null ? null : (JSON.parse(row.live) as StoredRewriteContent),
    createdBy: row.created_by,
    creationDate: row.creation_date,
    lastModifiedBy: row.last_modified_by,
    lastModified: row.last_modified,
  };
}

/** The row of a stored rewrite, every derived column computed from its contents. */
export function rewriteRow(rewrite: StoredRewrite): RewriteRow {
  const { staging, live } = rewrite;
  return {
    id: rewrite.id,
    studio_id: rewrite.studioId,
    type: rewrite.type,
    staging: JSON.stringify(staging),
    live: live === null ? null : JSON.stringify(live),
    created_by: rewrite.createdBy,
    creation_date: rewrite.creationDate,
    last_modified_by: rewrite.lastModifiedBy,
    last_modified: rewrite.lastModified,
    publish_state: publishState(rewrite),
    published: live === null ? 0 : 1,
    sort_start: staging.effectiveStart ?? '',
    sort_end: staging.effectiveEnd ?? '~',
    staging_start: staging.effectiveStart,
    staging_end: staging.effectiveEnd,
    live_start: live?.effectiveStart ?? null,
    live_end: live?.effectiveEnd ?? null,
  };
}

/** The search words of both contents, each once. */
export function rewriteWordRows(rewrite: StoredRewrite): RewriteWordRow[] {
  const words = new Set<string>();
  for (const content of rewrite.live === null ? [rewrite.staging] : [rewrite.staging, rewrite.live]) {
    for (const text of searchableTexts(content)) for (const word of searchWords(text)) words.add(word);
  }
  return [...words].map((word) => ({ studio_id: rewrite.studioId, word, rewrite_id: rewrite.id }));
}

/** What a rewrite can be found by: its description, tags, and the terms of its kind. */
export function searchableTexts(content: StoredRewriteContent): string[] {
  const own = (() => {
    switch (content.type) {
      case 'synonym':
        return [...(content.input == null ? [] : [content.input]), ...content.synonyms];
      case 'misspelling':
        return [content.misspelling, content.correction];
      case 'phrase':
        return [content.phrase];
      case 'headTail':
        return [content.query, content.head];
      case 'removeWords':
        return content.words;
    }
  })();
  return [content.description, ...content.tags, ...own];
}
