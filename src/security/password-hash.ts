import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** scrypt's cost parameters; each hash records its own, so a hash verifies whatever the default. */
export interface HashCost {
  N: number;
  r: number;
  p: number;
}

// scrypt cost: about 50 ms on one core, run on libuv's pool so the event loop stays free.
const DEFAULT_COST: HashCost = { N: 16384, r: 8, p: 1 };
const KEY_LENGTH = 32;

function derive(secret: string, salt: Buffer, n: number, rr: number, pp: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, KEY_LENGTH, { N: n, r: rr, p: pp, maxmem: 256 * n * rr }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** Hashes a password or client secret as `scrypt$N$r$p$salt$hash` (base64url parts). */
export async function hashSecret(secret: string, cost: HashCost = DEFAULT_COST): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(secret, salt, cost.N, cost.r, cost.p);
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Checks a secret against a stored hash in constant time. A malformed hash never matches. */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [scheme, n, rr, pp, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(secret, Buffer.from(salt, 'base64url'), Number(n), Number(rr), Number(pp));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
