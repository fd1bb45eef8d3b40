import { type DatabaseFailure, databaseFailure } from '../storage/unavailable.js';
import { UnavailableError } from './errors.js';

// Long enough for a pool to reconnect or a PostgreSQL restart to finish, short enough
// that a client retrying is served soon after.
const RETRY_AFTER_SECONDS = 5;

const messages: Record<DatabaseFailure, string> = {
  unreachable: 'the database is unavailable; retry later',
  busy: 'the database is busy with another write; retry later',
  timeout: 'the database did not finish this request in time; retry later or ask for less',
};

/** The 503 `unavailable` answer for an error that says the database cannot work now, else undefined. */
export function unavailableError(error: unknown): UnavailableError | undefined {
  const failure = databaseFailure(error);
  if (failure === undefined) return undefined;
  return new UnavailableError(messages[failure], RETRY_AFTER_SECONDS);
}
