import { createHmac } from 'node:crypto';
import { subkey } from '../security/subkey.js';

// Shoppers' ids (`user_id`) and sessions are stored only as keyed hashes: equal values give
// equal hashes (so a shopper's searches and clicks can be joined, and a privacy request can
// find every row of one shopper), but a leaked table cannot be checked against guessed ids
// without the service's secret key as well. One purpose subkey serves ids and sessions alike;
// they live in different columns, so equal strings in both never get confused.

/** The HKDF purpose of the shopper-hash key; changing it changes every stored hash. */
export const SHOPPER_HASH_PURPOSE = 'searchdeck shopper-id v1';

/** The key shopper values are hashed with: a purpose subkey of the service's secret key. */
export function shopperHashKey(secretKey: Buffer): Buffer {
  return subkey(secretKey, SHOPPER_HASH_PURPOSE);
}

/**
 * The stored form of a shopper's id or session: HMAC-SHA256 under the shopper-hash key
 * (`shopperHashKey`), base64url (43 characters). The value is hashed exactly as received.
 */
export function shopperHash(key: Uint8Array, value: string): string {
  return createHmac('sha256', key).update(value, 'utf8').digest('base64url');
}

/** Hashes shopper values under the service's secret key (derives the subkey once). */
export class ShopperHasher {
  readonly #key: Buffer;

  constructor(secretKey: Buffer) {
    this.#key = shopperHashKey(secretKey);
  }

  /** The stored hash of `value`, or null when there is none. */
  hash(value: string | undefined | null): string | null {
    return value === undefined || value === null || value === '' ? null : shopperHash(this.#key, value);
  }
}
