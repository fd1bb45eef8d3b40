// Which database errors say "the database cannot do this now" rather than "this request
// is wrong" or "searchdeck has a bug": the one place that knows the drivers' error shapes.
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';

/**
 * Why the database could not do a request's work: it cannot be reached or lost the
 * connection, it is locked by another writer, or the statement ran past its timeout.
 */
export type DatabaseFailure = 'unreachable' | 'busy' | 'timeout';

/** A failure the driver reports without a code of its own (a lost or refused connection). */
export class DatabaseUnavailableError extends Error {
  constructor(
    readonly failure: DatabaseFailure,
    cause: unknown,
  ) {
    super(`database ${failure}`, { cause });
    this.name = 'DatabaseUnavailableError';
  }
}

// Node's own socket errors on the way to PostgreSQL.
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** The availability failure behind an error, or undefined when the error is something else. */
export function databaseFailure(error: unknown): DatabaseFailure | undefined {
  if (error instanceof DatabaseUnavailableError) return error.failure;
  if (error instanceof pg.DatabaseError) return postgresFailure(error.code);
  if (error instanceof SqliteDatabase.SqliteError) {
    // SQLITE_BUSY and its extended codes: another connection held the lock past busy_timeout.
    return error.code.startsWith('SQLITE_BUSY') ? 'busy' : undefined;
  }
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' && NETWORK_CODES.has(code) ? 'unreachable' : undefined;
}

function postgresFailure(sqlstate: string | undefined): DatabaseFailure | undefined {
  if (sqlstate === undefined) return undefined;
  // 57014 query_canceled: statement_timeout (or a cancel request) stopped the statement.
  if (sqlstate === '57014') return 'timeout';
  // Class 08 connection exceptions; 57P01 admin shutdown, 57P02 crash shutdown,
  // 57P03 cannot connect now (starting or recovering); 53300 too many connections.
  if (sqlstate.startsWith('08') || ['57P01', '57P02', '57P03', '53300'].includes(sqlstate)) {
    return 'unreachable';
  }
  return undefined;
}
