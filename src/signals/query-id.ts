import { randomBytes } from 'node:crypto';

/**
 * A new query id: 128 random bits, base64url (22 characters). Random rather than counted, so
 * that every node makes its own without asking the others and none is ever guessed from
 * another; URL-safe, so a shop can put it in a link or a form as it is.
 */
export function newQueryId(): string {
  return randomBytes(16).toString('base64url');
}

/**
 * `count` new ids for the signals of one request that come without an id of their own: the
 * time (base 36, so that they sort by it), 96 random bits drawn once for the request, and the
 * signal's place in it. Time-ordered, new rows go at the end of the primary key's index
 * instead of each into a page of its own, which made a commit write and sync several times
 * the pages; random enough that nodes never make the same one.
 */
export function newSignalIds(count: number, at: number): string[] {
  const prefix = at.toString(36).padStart(9, '0') + randomBytes(12).toString('base64url');
  return Array.from({ length: count }, (_, i) => prefix + i.toString(36).padStart(3, '0'));
}
