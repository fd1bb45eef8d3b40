import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { termKey } from '../../src/text/term-key.js';
import { isPrivateQuery } from '../../src/typeahead/personal-data-filter.js';

const privateQueries = [
  '+49 170 1234567',
  '(555) 123-4567',
  '0170-1234567',
  '01701234567',
  '555.123.4567',
  '+1 (555) 123 45 67',
  'call 0170 1234567 please',
  'john.doe@example.com',
  'Mail an Max.Mustermann@Example.DE',
  '4111 1111 1111 1111',
];

const publicQueries = [
  'iphone 15 pro',
  '3080 ti',
  'rtx 4090 24gb',
  'samsung 55 zoll 2024',
  '12.000 btu klimaanlage',
  'usb-c 3.1 kabel 2m',
  '@home',
  'c@t',
  'ab 123456',
  'electrique',
];

describe('isPrivateQuery', () => {
  for (const query of privateQueries) {
    it(`treats ${JSON.stringify(query)} as private`, () => {
      assert.equal(isPrivateQuery(termKey(query)), true);
    });
  }

  for (const query of publicQueries) {
    it(`treats ${JSON.stringify(query)} as an ordinary search`, () => {
      assert.equal(isPrivateQuery(termKey(query)), false);
    });
  }
});
