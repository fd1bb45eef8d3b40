// How long work holds the event loop, told apart from a busy machine's own pauses.

import type { TestContext } from 'node:test';
import { setTimeout as sleep, setImmediate as yieldToEventLoop } from 'node:timers/promises';

const SPIN_MS = 5;

/** CPU time the process has used so far (all its threads), in ms. */
export function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
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
 * The longest the event loop was held by `work`, in ms. A shared machine deschedules a busy
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
  const stalls: number[] = [];
  for (let run = 0; run < 3 && !(stalls.length > 0 && Math.min(...stalls) <= limitMs); run++) {
    const measured = await longestDelay(work);
    const busy = await longestDelay(() => spin(Math.min(measured.seconds, 3)));
    const stepMs = await unavoidable();
    const noiseMs = Math.max(0, busy.delayMs - SPIN_MS, stepMs);
    stalls.push(Math.max(0, measured.delayMs - noiseMs));
    t.diagnostic(
      `run ${run + 1}: ${measured.seconds.toFixed(2)} s, longest event-loop delay ${measured.delayMs.toFixed(1)} ms; well-behaved work for as long: ${busy.delayMs.toFixed(1)} ms; unavoidable step: ${stepMs.toFixed(1)} ms`,
    );
  }
  return Math.min(...stalls);
}
