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
 * `count` new ids of the same kind as `newQueryId`, drawn from the random source at once:
 * for the signals of a batch that come without an id of their own.
 */
export function newQueryIds(count: number): string[] {
  const bytes = randomBytes(16 * count);
  return Array.from({ length: count }, (_, i) => bytes.toString('base64url', 16 * i, 16 * (i + 1)));
}
