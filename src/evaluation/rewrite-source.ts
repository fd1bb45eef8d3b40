// Where evaluation takes a studio's rewrites from: buildApp gives the Query Rewrites API's
// (`liveRewritesOf`, `stagingRewritesOf`); tests and the benchmark may give their own.
import type { Kysely } from 'kysely';
import type { LiveRewrite } from '../rewrites/rewrite.js';
import type { Database } from '../storage/schema.js';

export interface RewriteSource {
  /** The studio's live rewrites, in the order they apply within their kind. */
  live(db: Kysely<Database>, studioId: string): Promise<LiveRewrite[]>;
  /** The studio's staging rewrites (drafts in, those marked for deletion out), for previews. */
  staging(db: Kysely<Database>, studioId: string): Promise<LiveRewrite[]>;
}

/** No rewrites at all. */
export const NO_REWRITES: RewriteSource = {
  live: async () => [],
  staging: async () => [],
};
