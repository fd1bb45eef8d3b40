import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { storeAdminHash, storedAdminHash, storeFirstAdminHash } from './admin-repository.js';
import { hashSecret, verifySecret } from './password-hash.js';

/** Stores a new admin password (only its hash). */
export async function setAdminPassword(db: Kysely<Database>, password: string): Promise<void> {
  await storeAdminHash(db, await hashSecret(password));
}

/**
 * Makes sure an admin password exists at start. A configured password replaces the stored
 * one; with none configured and none stored, a strong one is generated and returned so the
 * caller can print it once, unless another node starting on the same database stored its own
 * first (`generatedByAnother`: that node printed it).
 */
export async function ensureAdminPassword(
  db: Kysely<Database>,
  configured: string | undefined,
): Promise<{ generated?: string; generatedByAnother?: boolean }> {
  const stored = await storedAdminHash(db);
  if (configured) {
    if (!stored || !(await verifySecret(configured, stored))) await setAdminPassword(db, configured);
    return {};
  }
  if (stored) return {};
  const generated = randomBytes(18).toString('base64url');
  // Two nodes starting together on a fresh database: only the first insert wins.
  await storeFirstAdminHash(db, await hashSecret(generated));
  const winner = await storedAdminHash(db);
  return winner && (await verifySecret(generated, winner)) ? { generated } : { generatedByAnother: true };
}
