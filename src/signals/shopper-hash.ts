import { createHmac } from 'node:crypto';
import { subkey } from '../security/subkey.js';

// Shoppers' ids and sessions are stored only as keyed hashes: equal values give equal hashes
// (a privacy request finds every row of one shopper), but a leaked table cannot be checked
// against guessed ids without the service's secret key too.

/** The HKDF purpose of the shopper-hash key; changing it changes every stored hash. */
export const SHOPPER_HASH_PURPOSE = 'searchdeck shopper id v1';

/** The key shopper values are hashed with: a purpose subkey of the service's secret key. */
export function shopperHashKey(secretKey: Buffer): Buffer {
  return subkey(secretKey, SHOPPER_HASH_PURPOSE);
}

/** The stored form of a shopper's id or session: HMAC-SHA256 of its UTF-8 bytes, hex. */
export function shopperHash(key: Uint8Array, value: string): string {
  return createHmac('sha256', key).update(value, 'utf8').digest('hex');
}
