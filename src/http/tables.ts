// Tables of what every interface shares (the failure limits of admin logins and tokens).

/**
 * One client's failures against one counter (`admin-login`, `token-request`) in a fixed
 * window (ISO 8601 end), and the checks of its credentials under way. The counter
 * `admin-account` counts one account's failures from any address instead: `client` is the
 * user name, the window ends a day after its last check, and `retry_at` is when the next
 * check may start once its free failures are used (null for the other counters).
 */
export interface AttemptWindowTable {
  counter: string;
  client: string;
  failures: number;
  pending: number;
  window_ends_at: string;
  retry_at: string | null;
}
