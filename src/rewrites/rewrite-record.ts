// A stored rewrite: identity, both contents, who changed it when; and what follows from
// them (publish state, deletion mark, the live form evaluation reads).

import type { PublishState } from '../listing/params.js';
import { canonicalJson } from '../rules/rule.js';
import type { LiveRewrite, RewriteContent, RewriteType } from './rewrite.js';
import type { StoredRewriteContent } from './rewrite-content.js';

export interface StoredRewrite {
  id: string;
  studioId: string;
  type: RewriteType;
  staging: StoredRewriteContent;
  live: StoredRewriteContent | null;
  createdBy: string;
  creationDate: string;
  lastModifiedBy: string;
  lastModified: string;
}

/** Whether two contents say the same thing (key order aside; list order counts). */
export function sameContent(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** Where a rewrite stands between its staging and live contents. */
export function publishState(rewrite: Pick<StoredRewrite, 'staging' | 'live'>): PublishState {
  if (rewrite.live === null) return 'DRAFT';
  return sameContent(rewrite.staging, rewrite.live) ? 'PUBLISHED' : 'PUBLISHED_WITH_DRAFT_EDITS';
}

/** Whether the next publish removes the rewrite. */
export function isMarkedForDeletion(rewrite: Pick<StoredRewrite, 'staging' | 'live'>): boolean {
  return rewrite.live !== null && rewrite.staging.deleted;
}

/** The live content evaluation applies: none for a draft or a rewrite marked for deletion. */
export function inEffect(rewrite: Pick<StoredRewrite, 'staging' | 'live'>): StoredRewriteContent | null {
  return rewrite.live !== null && !rewrite.staging.deleted ? rewrite.live : null;
}

/** A content in the form evaluation reads: the kind's fields, the id and the effective range. */
export function asLiveRewrite(id: string, content: StoredRewriteContent): LiveRewrite {
  const { description: _d, tags: _t, deleted: _x, effectiveStart, effectiveEnd, ...kind } = content;
  return { ...(kind as RewriteContent), id, effectiveStart, effectiveEnd };
}
