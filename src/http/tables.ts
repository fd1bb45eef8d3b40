// Tables of what every interface shares (the failure limits of admin logins and tokens).

/**
 * One client's failures against one counter (`admin-login`, `token-request`) in a fixed
 * window (ISO 8601 end), and the checks of its credentials under way.
 */
export interface AttemptWindowTable {
  counter: string;
  client: string;
  failures: number;
  pending: number;
  window_ends_at: string;
}
