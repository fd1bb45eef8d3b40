/** A typeahead instance: settings, the hashes of its embed tokens, and a change counter. */
export interface TypeaheadInstanceTable {
  id: string;
  name: string;
  /** JSON array of origins (`*` for any). */
  allowed_origins: string;
  top_terms_window_days: number;
  min_count: number;
  cache_max_age_seconds: number;
  /** Searches logged with fewer hits than this do not count. */
  min_hits: number;
  token_hash: string;
  previous_token_hash: string | null;
  previous_token_expires_at: string | null;
  /** Bumped in the same transaction as every change that alters what the instance serves. */
  version: number;
  created_at: string;
  updated_at: string;
}

/** A curated term; one per key and list. */
export interface TypeaheadTermTable {
  instance_id: string;
  /** 'included' or 'excluded'. */
  list: string;
  key: string;
  term: string;
}

/** The current top-searched set of an instance, as the last job run left it. */
export interface TypeaheadTopTermTable {
  instance_id: string;
  key: string;
  term: string;
  count: number;
}

/** Logged searches counted per hour (`YYYY-MM-DDTHH`, UTC) and key. */
export interface TypeaheadSearchCountTable {
  instance_id: string;
  key: string;
  hour: string;
  count: number;
}

/** How often each form of a key was entered, to show the most frequent one. */
export interface TypeaheadSearchFormTable {
  instance_id: string;
  key: string;
  form: string;
  count: number;
  last_hour: string;
}
