// What a failed write tells about concurrency, read from the driver's error codes: another
// writer took a unique value first, a parent row went away, or the engine gave up on a
// transaction that may simply be tried again. The one place that knows both drivers' codes.

/** A unique (or primary) key another row holds: its constraint name (PostgreSQL) and columns. */
export interface UniqueViolation {
  constraint: string | undefined;
  columns: string[];
}

interface DriverError {
  code?: unknown;
  constraint?: unknown;
  detail?: unknown;
  message?: unknown;
}

function driverError(error: unknown): DriverError | undefined {
  return typeof error === 'object' && error !== null ? (error as DriverError) : undefined;
}

/** The unique violation a failed INSERT or UPDATE reports, or undefined for any other error. */
export function uniqueViolation(error: unknown): UniqueViolation | undefined {
  const e = driverError(error);
  if (e?.code === '23505') {
    // pg gives the constraint by name; the columns only in `detail`: "Key (a, b)=(…) already exists."
    const columns = /^Key \(([^)]*)\)=/.exec(String(e.detail ?? ''))?.[1];
    return {
      constraint: typeof e.constraint === 'string' ? e.constraint : undefined,
      columns: columns ? columns.split(',').map((c) => c.trim()) : [],
    };
  }
  if (e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    // SQLite names no constraint; its message lists the columns: "UNIQUE constraint failed: t.a, t.b".
    const list = /constraint failed: (.*)$/.exec(String(e.message ?? ''))?.[1] ?? '';
    return { constraint: undefined, columns: list.split(',').map((c) => c.trim().replace(/^.*\./, '')) };
  }
  return undefined;
}

/** Whether a write failed because a row it refers to (a foreign key) no longer exists. */
export function isMissingParent(error: unknown): boolean {
  const code = driverError(error)?.code;
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

/**
 * Whether the engine aborted the transaction for another one's sake, so that running it again
 * from the start is safe and likely to succeed: PostgreSQL's serialization failures and
 * deadlocks; SQLite's busy database (another connection writing, past the busy timeout, or
 * this transaction's snapshot gone stale before its first write).
 */
export function isRetryable(error: unknown): boolean {
  const code = driverError(error)?.code;
  if (code === '40001' || code === '40P01') return true;
  return typeof code === 'string' && (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_'));
}

/**
 * Whether `error` is SQLite's plain SQLITE_BUSY: another connection held the lock, either past
 * busy_timeout or, for a transaction that had read already, at once (SQLite then does not wait,
 * lest two upgrading readers wait on each other).
 */
export function isSqliteBusy(error: unknown): boolean {
  return driverError(error)?.code === 'SQLITE_BUSY';
}
