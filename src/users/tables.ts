// Tables of users and their browser sessions.

/** A user of the Administrative API and the console. */
export interface AppUserTable {
  username: string;
  /** `scrypt$…` (password-hash.ts), as the admin password always was. */
  password_hash: string;
  /** `admin`, `merchandiser` or `viewer`. */
  role: string;
  /** JSON array of the studio ids a merchandiser may edit. */
  studios: string;
  /** JSON array of the typeahead instance ids a merchandiser may edit. */
  typeahead_instances: string;
  created_at: string;
  updated_at: string;
}

/** A signed-in browser: found by the hash of the id in its cookie. */
export interface UserSessionTable {
  id_hash: string;
  username: string;
  /** The synchronizer token every state-changing request of the session must send. */
  csrf_token: string;
  /** The session ends this long after, used or not (SEARCHDECK_SESSION_MAX_HOURS). */
  created_at: string;
  /** Moved forward at most every tenth of the idle time (a minute at most); the session ends after the idle time. */
  last_used_at: string;
}

/** An address a user signed in from (a password that matched), and when it last did. */
export interface UserKnownClientTable {
  username: string;
  client: string;
  signed_in_at: string;
}
