// The rule editor's start and end between the picker's wall-clock time and the stored ISO
// 8601 instant (console/src/pages/rules/when.ts), without a browser, in the zone this process
// runs in (the browser test runs the same conversion in New York's).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isoOf, wallOf } from '../../console/src/pages/rules/when.js';

// Whole seconds between 1971 and 2100: what the picker (to the minute) and the API hold.
const instants = fc
  .integer({ min: 31_536_000, max: 4_102_444_800 })
  .map((seconds) => new Date(seconds * 1000).toISOString());

test('a stored instant shown in the picker and taken back is the same wall-clock time', () => {
  fc.assert(
    fc.property(instants, (iso) => {
      const wall = wallOf(iso);
      assert.match(wall ?? '', /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      // The same instant, except in the hour a change of the clocks repeats, where the wall
      // time names two instants and the first is taken: either way it reads the same.
      assert.equal(wallOf(isoOf(wall)), wall);
      const back = isoOf(wall);
      assert.ok(
        back === iso || Math.abs(Date.parse(back ?? '') - Date.parse(iso)) <= 3_600_000,
        `${iso} ${back}`,
      );
    }),
  );
});

test('no time and times that are none are null, not an instant', () => {
  assert.equal(wallOf(null), null);
  assert.equal(wallOf(''), null);
  assert.equal(wallOf('not a date'), null);
  assert.equal(isoOf(null), null);
  assert.equal(isoOf('28/11/2026 09:30'), null);
  // A date alone is its midnight.
  assert.equal(wallOf(isoOf('2026-11-28')), '2026-11-28 00:00:00');
  assert.equal(wallOf(isoOf('2026-11-28 09:30')), '2026-11-28 09:30:00');
});
