import { createHmac, randomBytes } from 'node:crypto';
import { subkey } from '../security/subkey.js';

/** Makes and hashes embed tokens. Only hashes are stored: a database leak reveals no token. */
export class EmbedTokens {
  readonly #key: Buffer;

  constructor(secretKey: Buffer) {
    this.#key = subkey(secretKey, 'searchdeck typeahead-embed-token v1');
  }

  /** A fresh token: 32 random bytes, 43 URL-safe characters. */
  generate(): string {
    return randomBytes(32).toString('base64url');
  }

  /**
   * The look-up hash of a token. Tokens carry 256 bits of entropy, so a keyed fast hash
   * suffices (a slow password hash would buy nothing); the key means a stolen table
   * cannot even be checked against guesses without the secret key as well.
   */
  hash(token: string): string {
    return createHmac('sha256', this.#key).update(token).digest('base64url');
  }
}
