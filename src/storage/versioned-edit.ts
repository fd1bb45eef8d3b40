// Optimistic edits of a stored item whose version is its lastModified (rules, query
// rewrites): If-Match against it, a write that lands only when the item is still as
// read, and edits without If-Match applied again to the item as another request left it.
import type { Kysely } from 'kysely';
import { ConflictError } from '../http/errors.js';
import type { Database } from './schema.js';
import { inTransaction } from './transaction.js';

// How often an edit without If-Match is applied again to an item another request changed meanwhile.
export const EDIT_ATTEMPTS = 5;

/**
 * Runs `attempt` in a transaction (the caller's, or a new one) until it does not answer
 * 'stale' (another write landed between its read and its write). With If-Match the client
 * named a version, so a stale attempt is a conflict at once; without, it is tried again.
 */
export function editVersioned<T>(
  db: Kysely<Database>,
  what: string,
  ifMatch: string | undefined,
  attempt: (trx: Kysely<Database>) => Promise<T | 'stale'>,
): Promise<T> {
  return inTransaction(db, async (trx) => {
    for (let count = 1; ; count++) {
      const result = await attempt(trx);
      if (result !== 'stale') return result;
      if (ifMatch !== undefined || count >= EDIT_ATTEMPTS) {
        throw new ConflictError(`the ${what} was changed by another request; read it again`);
      }
    }
  });
}

/** Throws the If-Match conflict when `ifMatch` names another version than `lastModified`. */
export function requireVersion(what: string, ifMatch: string | undefined, lastModified: string): void {
  if (ifMatch !== undefined && !matchesVersion(ifMatch, lastModified)) {
    throw new ConflictError(`the ${what} was changed since ${ifMatch} (it is now ${lastModified})`, {
      lastModified,
    });
  }
}

/** Whether an If-Match value (an ETag, or the lastModified itself) names this version. */
export function matchesVersion(ifMatch: string, lastModified: string): boolean {
  return ifMatch.split(',').some((candidate) => {
    const value = candidate
      .trim()
      .replace(/^W\//, '')
      .replace(/^"(.*)"$/, '$1');
    return value === '*' || value === lastModified || Date.parse(value) === Date.parse(lastModified);
  });
}

/** The ETag of a version: its lastModified, which changes with every write. */
export function versionEtag(lastModified: string): string {
  return `"${lastModified}"`;
}

/**
 * The lastModified of the next version. Two writes in one millisecond still get different
 * values, so that If-Match with a lastModified always tells versions apart.
 */
export function nextLastModified(now: Date, previous: string): string {
  const time = Math.max(now.getTime(), Date.parse(previous) + 1);
  return new Date(time).toISOString();
}
