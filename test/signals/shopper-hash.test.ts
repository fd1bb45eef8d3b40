import assert from 'node:assert/strict';
import { createHmac, hkdfSync } from 'node:crypto';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { ShopperHasher, shopperHash, shopperHashKey } from '../../src/signals/shopper-hash.js';

const secret = Buffer.alloc(32, 3);

describe('shopper hashes', () => {
  test('are HMAC-SHA256 under the shopper purpose subkey, base64url', () => {
    const key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'searchdeck shopper-id v1', 32));
    assert.deepEqual(shopperHashKey(secret), key);
    const expected = createHmac('sha256', key).update('shopper-42').digest('base64url');
    assert.equal(shopperHash(shopperHashKey(secret), 'shopper-42'), expected);
    assert.equal(new ShopperHasher(secret).hash('shopper-42'), expected);
    assert.match(expected, /^[A-Za-z0-9_-]{43}$/);
  });

  test('are the same for the same value and never contain it', () => {
    const hasher = new ShopperHasher(secret);
    fc.assert(
      fc.property(fc.string({ minLength: 8 }), fc.string({ minLength: 1 }), (a, b) => {
        assert.equal(hasher.hash(a), hasher.hash(a));
        if (a !== b) assert.notEqual(hasher.hash(a), hasher.hash(b));
        assert.ok(!hasher.hash(a)?.includes(a));
      }),
    );
  });

  test('differ under another secret key, and are absent for absent values', () => {
    const other = new ShopperHasher(Buffer.alloc(32, 4));
    assert.notEqual(other.hash('u1'), new ShopperHasher(secret).hash('u1'));
    assert.equal(other.hash(undefined), null);
    assert.equal(other.hash(''), null);
  });
});
