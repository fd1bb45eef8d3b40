import assert from 'node:assert/strict';
import { createDecipheriv } from 'node:crypto';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { SecretBox, SecretBoxError } from '../../src/security/secret-box.js';

const key = Buffer.alloc(32, 7);
const context = 'search-cluster:prod#password';

describe('the secret box', () => {
  test('opens what it sealed, for any text', () => {
    const box = new SecretBox(key);
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string(), (plaintext, where) => {
        assert.equal(box.open(box.seal(plaintext, where), where), plaintext);
      }),
    );
  });

  test('seals the same text differently every time, and never in the clear', () => {
    const box = new SecretBox(key);
    const first = box.seal('Sup3r-s3cret', context);
    const second = box.seal('Sup3r-s3cret', context);
    assert.notEqual(first, second);
    assert.match(first, /^v1\.[A-Za-z0-9_-]+$/);
    assert.ok(!first.includes('Sup3r') && !Buffer.from(first.slice(3), 'base64url').includes('Sup3r'));
  });

  test('does not open a value sealed for another record or field', () => {
    const box = new SecretBox(key);
    const sealed = box.seal('Sup3r-s3cret', context);
    assert.throws(() => box.open(sealed, 'search-cluster:other#password'), SecretBoxError);
    assert.throws(() => box.open(sealed, 'search-cluster:prod#keyTab'), SecretBoxError);
  });

  test('does not open a value sealed under another secret key', () => {
    const sealed = new SecretBox(key).seal('Sup3r-s3cret', context);
    assert.throws(() => new SecretBox(Buffer.alloc(32, 8)).open(sealed, context), /secret key changed/);
  });

  test('rejects a damaged value, a truncated one and an unknown format version', () => {
    const box = new SecretBox(key);
    const sealed = box.seal('Sup3r-s3cret', context);
    const bytes = Buffer.from(sealed.slice(3), 'base64url');
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
    assert.throws(() => box.open(`v1.${bytes.toString('base64url')}`, context), SecretBoxError);
    assert.throws(() => box.open('v1.AAAA', context), /truncated/);
    assert.throws(() => box.open(`v2.${sealed.slice(3)}`, context), /unknown sealed-secret format "v2"/);
    assert.throws(() => box.open('Sup3r-s3cret', context), SecretBoxError);
  });

  test('derives its key instead of using the service key as it is', () => {
    const sealed = new SecretBox(key).seal('x', context);
    const bytes = Buffer.from(sealed.slice(3), 'base64url');
    // Decrypting with the raw service key must fail: the box uses an HKDF subkey.
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(bytes.subarray(12, 28));
    decipher.update(bytes.subarray(28));
    assert.throws(() => decipher.final());
  });

  test('refuses a key that is not 32 bytes', () => {
    assert.throws(() => new SecretBox(Buffer.alloc(16)), /32 bytes/);
  });
});
