import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CoalescingSync } from '../../src/storage/coalescing-sync.js';

/** A pass that waits until released, counting how many ran and how many ran at once. */
function gatedPasses() {
  const state = { started: 0, running: 0, mostAtOnce: 0, release: [] as Array<() => void> };
  const pass = async () => {
    state.started++;
    state.running++;
    state.mostAtOnce = Math.max(state.mostAtOnce, state.running);
    await new Promise<void>((resolve) => state.release.push(resolve));
    state.running--;
  };
  return { state, pass };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('calls made during a pass share one more pass after it, never two at once', async () => {
  const { state, pass } = gatedPasses();
  const sync = new CoalescingSync(pass);
  const first = sync.run();
  await tick();
  const second = sync.run();
  const third = sync.run();
  assert.equal(second, third);
  state.release.shift()!();
  await tick();
  assert.equal(state.started, 2, 'the calls made during the first pass get a second one');
  state.release.shift()!();
  await Promise.all([first, second, third]);
  assert.equal(state.started, 2);
  assert.equal(state.mostAtOnce, 1);
});

test('a call after the passes ended starts a new pass', async () => {
  let passes = 0;
  const sync = new CoalescingSync(async () => {
    passes++;
  });
  await sync.run();
  await sync.run();
  assert.equal(passes, 2);
});

test('a failed pass rejects its callers, and the next call runs again', async () => {
  let fail = true;
  let passes = 0;
  const sync = new CoalescingSync(async () => {
    passes++;
    if (fail) throw new Error('database away');
  });
  await assert.rejects(sync.run(), /database away/);
  await sync.settled();
  fail = false;
  await sync.run();
  assert.equal(passes, 2);
});
