/** One query profile; `settings` is the profile's JSON without its id (see ProfileSettings). */
export interface QueryProfileTable {
  app: string;
  id: string;
  search_cluster: string;
  settings: string;
  created_at: string;
  updated_at: string;
}

/** A search-only key of a profile: the SHA-256 of its secret, never the secret itself. */
export interface QueryKeyTable {
  id: string;
  app: string;
  profile_id: string;
  secret_hash: string;
  created_at: string;
}
