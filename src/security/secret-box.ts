import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { subkey } from './subkey.js';

// A sealed secret reads `v1.<base64url(iv ‖ tag ‖ ciphertext)>`. The version names the whole
// recipe (HKDF-SHA256 subkey with the info below, AES-256-GCM, 12-byte IV, 16-byte tag), so a
// later recipe (another key, another cipher) can be added beside it and old values still open.
const VERSION = 'v1';
const KEY_INFO = 'searchdeck secret-box v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A sealed value that cannot be opened: unknown version, damaged, another context, or another key. */
export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

/**
 * Encrypts secrets for storage (AES-256-GCM under a subkey of the service's secret key). Each
 * value is bound to a context (like `search-cluster:prod#password`), so a sealed value copied to
 * another record or field does not open there.
 */
export class SecretBox {
  readonly #key: Buffer;

  constructor(secretKey: Buffer) {
    if (secretKey.length !== 32) throw new Error('the secret key must be 32 bytes');
    this.#key = subkey(secretKey, KEY_INFO);
  }

  /** The sealed form of `plaintext`, different on every call (random IV). */
  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const sealed = Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
    return `${VERSION}.${sealed.toString('base64url')}`;
  }

  /** The plaintext of a value `seal` made with the same key and context; throws SecretBoxError otherwise. */
  open(sealed: string, context: string): string {
    const dot = sealed.indexOf('.');
    const version = dot === -1 ? '' : sealed.slice(0, dot);
    if (version !== VERSION) throw new SecretBoxError(`unknown sealed-secret format "${version}"`);
    const bytes = Buffer.from(sealed.slice(dot + 1), 'base64url');
    if (bytes.length < IV_BYTES + TAG_BYTES) throw new SecretBoxError('the sealed secret is truncated');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(0, IV_BYTES), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    try {
      return Buffer.concat([
        decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new SecretBoxError(
        'the sealed secret does not open with this key and context (was the secret key changed?)',
      );
    }
  }
}
