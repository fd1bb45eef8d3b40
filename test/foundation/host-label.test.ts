import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostLabel } from '../../src/http/host-label.js';

test('takes the first label of a host name, with or without a port', () => {
  assert.equal(hostLabel('shop-en.typeahead.example.com'), 'shop-en');
  assert.equal(hostLabel('Shop-EN.typeahead.example.com:8443'), 'shop-en');
});

test('finds no label in a single-label host or an address', () => {
  assert.equal(hostLabel('localhost:8764'), undefined);
  assert.equal(hostLabel('127.0.0.1:8764'), undefined);
  assert.equal(hostLabel('10.1.2.3'), undefined);
  assert.equal(hostLabel('[::1]:8764'), undefined);
  assert.equal(hostLabel('[::ffff:10.0.0.1]:8764'), undefined);
  assert.equal(hostLabel(undefined), undefined);
});
