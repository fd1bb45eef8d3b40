import assert from 'node:assert/strict';
import { createHmac, webcrypto } from 'node:crypto';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { errors, jwtVerify, SignJWT } from 'jose';
import { Hs256Error, verifyHs256 } from '../../src/oauth/hs256.js';

const KEY = Buffer.alloc(32, 9);
const OTHER_KEY = Buffer.alloc(32, 8);
const ISSUER = 'searchdeck';
const NOW = new Date('2026-06-01T12:00:00Z');
const nowSeconds = Math.floor(NOW.getTime() / 1000);

/** What jose, the reference, says of a token: accepted, expired or invalid. */
async function reference(token: string): Promise<string> {
  const key = await webcrypto.subtle.importKey(
    'raw',
    new Uint8Array(KEY),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['verify'],
  );
  try {
    await jwtVerify(token, key, {
      issuer: ISSUER,
      algorithms: ['HS256'],
      currentDate: NOW,
      clockTolerance: 0,
    });
    return 'accepted';
  } catch (error) {
    return error instanceof errors.JWTExpired ? 'expired' : 'invalid';
  }
}

function ours(token: string): string {
  try {
    verifyHs256(token, KEY, ISSUER, NOW);
    return 'accepted';
  } catch (error) {
    assert.ok(error instanceof Hs256Error);
    return error.reason;
  }
}

/** Signs any header and payload as given (also ones jose would not produce). */
function rawToken(header: unknown, payload: unknown, key = KEY): string {
  const segment = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const signingInput = `${segment(header)}.${segment(payload)}`;
  return `${signingInput}.${createHmac('sha256', key).update(signingInput).digest('base64url')}`;
}

const claims = fc.record(
  {
    iss: fc.constantFrom(ISSUER, 'someone-else'),
    exp: fc.oneof(fc.integer({ min: nowSeconds - 5, max: nowSeconds + 5 }), fc.constant('soon')),
    nbf: fc.integer({ min: nowSeconds - 5, max: nowSeconds + 5 }),
    iat: fc.oneof(fc.integer({ min: nowSeconds - 5, max: nowSeconds + 5 }), fc.constant('then')),
    sub: fc.string(),
  },
  { requiredKeys: [] },
);
const header = fc.record(
  {
    alg: fc.constantFrom('HS256', 'HS384', 'none'),
    typ: fc.constantFrom('JWT', 'at+jwt'),
    crit: fc.constant(['b64']),
    b64: fc.constant(false),
  },
  { requiredKeys: ['alg'] },
);

describe('HS256 token check', () => {
  test('agrees with jose on tokens of any claims and header, signed with our key or another', async () => {
    await fc.assert(
      fc.asyncProperty(header, claims, fc.boolean(), async (h, c, ourKey) => {
        const token = rawToken(h, c, ourKey ? KEY : OTHER_KEY);
        assert.equal(ours(token), await reference(token));
      }),
      { numRuns: 300 },
    );
  });

  test('agrees with jose on the time claims of otherwise valid tokens, at each second around now', async () => {
    const around = fc.integer({ min: nowSeconds - 2, max: nowSeconds + 2 });
    await fc.assert(
      fc.asyncProperty(
        fc.record({ exp: around, nbf: around, iat: around }, { requiredKeys: [] }),
        async (times) => {
          const token = rawToken({ alg: 'HS256', typ: 'JWT' }, { iss: ISSUER, ...times });
          assert.equal(ours(token), await reference(token));
        },
      ),
      { numRuns: 300 },
    );
  });

  test('agrees with jose on tokens tampered with one character at a time', async () => {
    const token = await new SignJWT({ studio_id: 'shop', scope: 'commercestudio.rules' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(ISSUER)
      .setSubject('client')
      .setIssuedAt(nowSeconds)
      .setExpirationTime(nowSeconds + 3600)
      .sign(new Uint8Array(KEY));
    assert.equal(ours(token), 'accepted');
    await fc.assert(
      fc.asyncProperty(
        fc.nat(token.length - 1),
        fc.constantFrom(...'AZaz09-_.=+/ é'),
        async (at, character) => {
          const tampered = token.slice(0, at) + character + token.slice(at + 1);
          fc.pre(tampered !== token);
          assert.equal(ours(tampered), await reference(tampered));
        },
      ),
      { numRuns: 300 },
    );
  });

  test('refuses a payload that is not a JSON object, or a token not of three parts', () => {
    for (const token of [
      rawToken({ alg: 'HS256' }, [1, 2]),
      rawToken({ alg: 'HS256' }, 'text'),
      'a.b',
      'a.b.c.d',
      '',
    ]) {
      assert.equal(ours(token), 'invalid', token);
    }
  });
});
