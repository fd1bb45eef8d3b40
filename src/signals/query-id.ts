import { randomBytes } from 'node:crypto';

/**
 * A new query id: 128 random bits, base64url (22 characters). Random rather than counted, so
 * that every node makes its own without asking the others and none is ever guessed from
 * another; URL-safe, so a shop can put it in a link or a form as it is.
 */
export function newQueryId(): string {
  return randomBytes(16).toString('base64url');
}
