import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { storeAdminHash, storedAdminHash, storeFirstAdminHash } from './admin-repository.js';
import { hashSecret, verifySecret } from './password-hash.js';

export const ADMIN_USER = 'admin';

/** Stores a new admin password (only its hash). */
export async function setAdminPassword(db: Kysely<Database>, password: string): Promise<void> {
  await storeAdminHash(db, await hashSecret(password));
}

/**
 * Makes sure an admin password exists at start. A configured password replaces the stored
 * one; with none configured and none stored, a strong one is generated and returned so the
 * caller can print it once.
 */
export async function ensureAdminPassword(
  db: Kysely<Database>,
  configured: string | undefined,
): Promise<{ generated?: string }> {
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
  return winner && (await verifySecret(generated, winner)) ? { generated } : {};
}

/**
 * Verifies admin credentials. scrypt costs ~50 ms, too much for every API call, so the last
 * verified password is remembered as an HMAC under a per-process key, tied to the stored hash
 * it was verified against; the stored hash is re-read at most every few seconds so a password
 * changed on another node takes effect quickly.
 */
export class AdminVerifier {
  private readonly cacheKey = randomBytes(32);
  private hash: { value: string | undefined; readAt: number } = { value: undefined, readAt: 0 };
  private verified: { hash: string; mac: Buffer } | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly refreshMs = 5000,
  ) {}

  async verify(user: string, password: string): Promise<boolean> {
    const known = await this.knownVerdict(user, password);
    if (known !== undefined) return known;
    const hash = await this.currentHash();
    if (!hash || !(await verifySecret(password, hash))) return false;
    this.verified = { hash, mac: this.macOf(password) };
    return timingSafeEqualStrings(user, ADMIN_USER);
  }

  /**
   * The verdict when it costs no scrypt (no password is set, or this is the remembered
   * one), else undefined: the caller then knows the check will be slow.
   */
  async knownVerdict(user: string, password: string): Promise<boolean | undefined> {
    const hash = await this.currentHash();
    if (!hash) return false;
    if (this.verified?.hash !== hash || !timingSafeEqual(this.macOf(password), this.verified.mac)) {
      return undefined;
    }
    return timingSafeEqualStrings(user, ADMIN_USER);
  }

  /** A key naming these credentials without holding them (keyed by this process's secret). */
  credentialsKey(user: string, password: string): string {
    return createHmac('sha256', this.cacheKey).update(user).update('\0').update(password).digest('base64');
  }

  private macOf(password: string): Buffer {
    return createHmac('sha256', this.cacheKey).update(password).digest();
  }

  private async currentHash(): Promise<string | undefined> {
    const now = Date.now();
    if (now - this.hash.readAt > this.refreshMs)
      this.hash = { value: await storedAdminHash(this.db), readAt: now };
    return this.hash.value;
  }
}

function timingSafeEqualStrings(a: string, b: string): boolean {
  const x = createHmac('sha256', 'compare').update(a).digest();
  const y = createHmac('sha256', 'compare').update(b).digest();
  return timingSafeEqual(x, y);
}
