import { createHmac, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { hashSecret, verifySecret } from '../security/password-hash.js';
import type { Database } from '../storage/schema.js';
import { selectUser, type UserRow } from './repository.js';
import { type User, userOf } from './service.js';

// At most this many users' rows and verdicts are remembered; beyond, the memory starts over.
const MAX_REMEMBERED = 1000;

/**
 * Verifies a user's password (HTTP Basic). scrypt costs ~50 ms, too much for every API call,
 * so verified credentials are remembered by their HMAC under a per-process key (never the
 * password itself), tied to the stored hash they were verified against: a wrong password has
 * another key and always takes the slow path. A user's row is re-read at most every few
 * seconds, so a password, role or deletion changed on another node takes effect quickly, and
 * at once on this node (`forget`).
 */
export class UserVerifier {
  private readonly cacheKey = randomBytes(32);
  private readonly rows = new Map<string, { row: UserRow | undefined; readAt: number }>();
  // By credentials key: whose they are and the stored hash they were verified against.
  private readonly verified = new Map<string, { username: string; hash: string }>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly refreshMs = 5000,
  ) {}

  /** The user when the password is theirs, else undefined (one scrypt unless remembered). */
  async verify(username: string, password: string): Promise<User | undefined> {
    const known = await this.knownVerdict(username, password);
    if (known !== undefined) return known === false ? undefined : known;
    // The slow path reads the row afresh: a password just changed on this node counts at once.
    const row = await this.rowOf(username, true);
    if (!row) {
      await verifySecret(password, await decoyHash());
      return undefined;
    }
    if (!(await verifySecret(password, row.password_hash))) return undefined;
    if (this.verified.size >= MAX_REMEMBERED) this.verified.clear();
    this.verified.set(this.credentialsKey(username, password), { username, hash: row.password_hash });
    return userOf(row);
  }

  /**
   * The verdict when it costs no scrypt (these are the remembered credentials), else
   * undefined: the caller then knows the check will be slow. `key`, when given, is
   * `credentialsKey(username, password)` worked out before.
   */
  async knownVerdict(
    username: string,
    password: string,
    key = this.credentialsKey(username, password),
  ): Promise<User | false | undefined> {
    const remembered = this.verified.get(key);
    if (remembered === undefined) return undefined;
    const row = await this.rowOf(username);
    if (!row || row.password_hash !== remembered.hash) {
      // Changed or deleted since: only a fresh scrypt may admit these credentials again.
      this.verified.delete(key);
      return undefined;
    }
    return userOf(row);
  }

  /** Forgets what is remembered of a user (changed or deleted on this node): the next request reads afresh. */
  forget(username: string): void {
    this.rows.delete(username);
    for (const [key, remembered] of this.verified) {
      if (remembered.username === username) this.verified.delete(key);
    }
  }

  /** A key naming these credentials without holding them (keyed by this process's secret). */
  credentialsKey(username: string, password: string): string {
    return createHmac('sha256', this.cacheKey)
      .update(username)
      .update('\0')
      .update(password)
      .digest('base64');
  }

  private async rowOf(username: string, fresh = false): Promise<UserRow | undefined> {
    const now = Date.now();
    const cached = this.rows.get(username);
    if (!fresh && cached && now - cached.readAt <= this.refreshMs) return cached.row;
    const row = await selectUser(this.db, username);
    if (this.rows.size >= MAX_REMEMBERED) this.rows.clear();
    this.rows.set(username, { row, readAt: now });
    return row;
  }
}

// Compared against for an unknown user, so that a wrong name costs as long as a wrong password.
// One per process, made when first needed: every verifier (every app a process builds) shares it.
let decoy: Promise<string> | undefined;
const decoyHash = () => (decoy ??= hashSecret(randomBytes(16).toString('base64url')));
