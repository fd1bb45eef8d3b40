// The check of our own HS256 access tokens with node:crypto's HMAC, synchronously. jose (v6)
// verifies through Web Crypto, whose asynchronous job per token cost a fifth of a bearer
// request's CPU; the tokens are still signed by jose, and this check follows jose's rules
// for them (a property test compares the two on valid, tampered and expired tokens).
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Why a token was refused: `expired` (a valid token past its `exp`) or `invalid` (anything else). */
export class Hs256Error extends Error {
  constructor(readonly reason: 'expired' | 'invalid') {
    super(reason === 'expired' ? 'the token has expired' : 'the token is invalid');
  }
}

const SEGMENT = /^[A-Za-z0-9_-]+$/;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The payload of a compact HS256 JWT signed with `key` and issued by `issuer`, valid at `now`. */
export function verifyHs256(token: string, key: Buffer, issuer: string, now: Date): Record<string, unknown> {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((part) => SEGMENT.test(part))) throw new Hs256Error('invalid');
  const [header, payload, signature] = parts as [string, string, string];
  const expected = Buffer.from(
    createHmac('sha256', key).update(`${header}.${payload}`).digest('base64url'),
    'latin1',
  );
  const given = Buffer.from(signature, 'latin1');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new Hs256Error('invalid');
  const protectedHeader = decodeObject(header);
  // A critical extension we do not understand makes the token unusable (RFC 7515 §4.1.11).
  if (protectedHeader.alg !== 'HS256' || protectedHeader.crit !== undefined) throw new Hs256Error('invalid');
  const claims = decodeObject(payload);
  if (claims.iss !== issuer) throw new Hs256Error('invalid');
  for (const claim of ['iat', 'nbf', 'exp']) {
    if (claims[claim] !== undefined && !isNumericDate(claims[claim])) throw new Hs256Error('invalid');
  }
  checkValidity(claims, now);
  return claims;
}

/** Throws unless claims that `verifyHs256` accepted are still valid at `now` (`nbf`, `exp`). */
export function checkValidity(claims: Record<string, unknown>, now: Date): void {
  const seconds = Math.floor(now.getTime() / 1000);
  if (typeof claims.nbf === 'number' && claims.nbf > seconds) throw new Hs256Error('invalid');
  if (typeof claims.exp === 'number' && claims.exp <= seconds) throw new Hs256Error('expired');
}

function decodeObject(segment: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(UTF8.decode(Buffer.from(segment, 'base64url')));
  } catch {
    throw new Hs256Error('invalid');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Hs256Error('invalid');
  return value as Record<string, unknown>;
}

function isNumericDate(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value);
}
