import { hkdfSync } from 'node:crypto';

/**
 * A 32-byte key for one purpose, derived from the service's secret key (HKDF-SHA256), so
 * that the raw key never serves two purposes. The purpose names its version
 * (`searchdeck tokens v1`): changing it changes every key derived for it.
 */
export function subkey(secretKey: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), purpose, 32));
}
