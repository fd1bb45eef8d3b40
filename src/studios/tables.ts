// Tables of the studios area: studios and the API clients that act on them.

export interface StudioTable {
  id: string;
  name: string;
  /** JSON array of webhook URLs that receive every content change. */
  sync_targets: string;
  created_at: string;
  /**
   * Random, new for every creation (null only on rows of an older version, filled by the
   * migration that added it): the tokens of a studio carry it.
   */
  incarnation: string | null;
}

export interface StudioClientTable {
  client_id: string;
  studio_id: string;
  name: string;
  secret_hash: string;
  /** JSON array of granted scopes. */
  scopes: string;
  created_at: string;
}

/** The signing secret of one sync target of a studio, sealed with the secret box. */
export interface StudioSyncTargetSecretTable {
  studio_id: string;
  url: string;
  secret: string;
  created_at: string;
}
