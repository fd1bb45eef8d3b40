// How long work holds the event loop, told apart from a busy machine's own pauses.

import type { TestContext } from 'node:test';
import { setTimeout as sleep, setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';

const SPIN_MS = 5;

/** CPU time the process has used so far (all its threads), in ms. */
export function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * Time, in ms, the calibration work below takes on the kind of machine the bounds of these
 * tests were set on (50 ms for a stall, 100 ms for a health check). Measured as 21–35 ms on a
 * later machine whose in-process typeahead figures (docs/benchmarks.md) came out 2.1 times
 * slower than the first machine's; 37 ms at its slowest, over 2.1.
 */
const REFERENCE_MS = 17.5;

/**
 * Plain synchronous work of the kinds that hold the loop (JSON both ways, keyed maps, a hash),
 * timed in a worker of its own: a fresh isolate, whatever this process's heap and compiled
 * code are by now. It answers its runs' times, the first ones compiling too.
 */
const CALIBRATION = `
const { createHash } = require('node:crypto');
const { parentPort } = require('node:worker_threads');
const rows = Array.from({ length: 2000 }, (_, i) => ({
  id: 'rule-' + i, name: 'Cheap laptop number ' + i, tags: ['a', 'b', String(i % 7)], score: i / 3, on: i % 2 === 0,
}));
function work() {
  let n = 0;
  for (let round = 0; round < 5; round++) {
    const text = JSON.stringify(rows);
    const byName = new Map();
    for (const row of JSON.parse(text)) byName.set(row.name.toLowerCase().normalize('NFKD'), row);
    n += byName.size + createHash('sha256').update(text).digest()[0];
  }
  return n;
}
const times = [];
for (let run = 0; run < 12; run++) {
  const started = performance.now();
  work();
  times.push(performance.now() - started);
}
parentPort.postMessage(times);
`;

let factor: Promise<number> | undefined;

/**
 * How many times slower than the reference machine this one does plain work now (at least 1,
 * at most 3): the quickest of the calibration's later runs over the reference's time. A bound
 * on how long work may hold the loop is a bound for a machine of that speed: the same step that
 * cannot be split (a parse, a commit, a collection) takes twice as long on a machine half as
 * fast, while work that never yields still fails by far. Measured once per process.
 */
export function machineFactor(): Promise<number> {
  factor ??= new Promise<number[]>((resolve, reject) => {
    const worker = new Worker(CALIBRATION, { eval: true });
    worker.once('message', resolve);
    worker.once('error', reject);
  }).then((times) => Math.min(3, Math.max(1, Math.min(...times.slice(4)) / REFERENCE_MS)));
  return factor;
}

/**
 * The longest event-loop delay, in ms, while `run` goes: the longest gap between the
 * ticks of a 1 ms interval (plain, so it misses nothing between the histogram's samples).
 * A gap counts only as long as the process used the CPU during it: work holding the loop
 * burns CPU for all of its length, while a process the machine has descheduled burns none,
 * however long it waits. (Other threads' CPU counts too, which errs towards a longer hold.)
 */
async function longestDelay(run: () => Promise<void>): Promise<{ delayMs: number; seconds: number }> {
  let last = performance.now();
  let lastCpu = cpuMs();
  let longest = 0;
  const probe = setInterval(() => {
    const now = performance.now();
    const cpu = cpuMs();
    longest = Math.max(longest, Math.min(now - last, cpu - lastCpu));
    last = now;
    lastCpu = cpu;
  }, 1);
  const started = performance.now();
  try {
    await run();
  } finally {
    // A delay shows when the probe's next tick finally runs: give it the chance.
    await sleep(10);
    clearInterval(probe);
  }
  return { delayMs: longest, seconds: (performance.now() - started) / 1000 };
}

/** Work that yields every 5 ms, as well-behaved work does: its delays are the machine's. */
async function spin(seconds: number): Promise<void> {
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const until = performance.now() + SPIN_MS;
    while (performance.now() < until) {}
    await yieldToEventLoop();
  }
}

/**
 * The longest the event loop was held by `work`, in ms of the reference machine (the delay
 * measured here over `machineFactor()`). A shared machine deschedules a busy
 * process now and then, which looks like a long delay too: each run is compared with work
 * that yields every 5 ms for as long (its delays beyond 5 ms are the machine's), and the
 * best of up to three runs counts, as blocking by `work` would show in every run. A step that
 * cannot be split (one SQLite commit of a fixed size, written by a synchronous driver, timed
 * on the machine as it is now) is taken off too: what is measured is how long the work holds
 * the loop beyond it, so larger steps or work that does not yield still show.
 */
export async function longestStall(
  t: TestContext,
  limitMs: number,
  work: () => Promise<void>,
  /** The longest unavoidable synchronous step of `work` on this machine now (a commit), in ms. */
  unavoidable: () => Promise<number> = async () => 0,
): Promise<number> {
  const slower = await machineFactor();
  const stalls: number[] = [];
  for (let run = 0; run < 3 && !(stalls.length > 0 && Math.min(...stalls) <= limitMs); run++) {
    const measured = await longestDelay(work);
    const busy = await longestDelay(() => spin(Math.min(measured.seconds, 3)));
    const stepMs = await unavoidable();
    const noiseMs = Math.max(0, busy.delayMs - SPIN_MS, stepMs);
    stalls.push(Math.max(0, measured.delayMs - noiseMs) / slower);
    t.diagnostic(
      `run ${run + 1}: ${measured.seconds.toFixed(2)} s, longest event-loop delay ${measured.delayMs.toFixed(1)} ms; well-behaved work for as long: ${busy.delayMs.toFixed(1)} ms; unavoidable step: ${stepMs.toFixed(1)} ms; this machine ${slower.toFixed(2)}× slower than the reference`,
    );
  }
  return Math.min(...stalls);
}
