// Waiting on a condition instead of a fixed time: a test that sleeps "long enough" is slow on
// a quiet machine and flaky on a busy one.
import { setTimeout as sleep } from 'node:timers/promises';

export interface EventuallyOptions {
  /** How long the condition may take before the test fails (ms). */
  within?: number;
  /** How long to wait between two checks (ms). */
  every?: number;
  /** Said when the condition did not hold in time (the last failure follows). */
  message?: string;
}

/**
 * Checks until `check` holds, and answers what it answered then. `check` holds when it neither
 * throws nor answers `false`, so it may be an assertion or a predicate. Fails after `within` ms
 * with the last assertion's failure.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  { within = 10_000, every = 10, message }: EventuallyOptions = {},
): Promise<Exclude<T, false>> {
  const deadline = performance.now() + within;
  let last: unknown;
  for (;;) {
    try {
      const answer = await check();
      if (answer !== false) return answer as Exclude<T, false>;
      last = undefined;
    } catch (error) {
      last = error;
    }
    if (performance.now() >= deadline) {
      const why = message ?? 'the condition did not hold';
      throw new Error(`${why} within ${within} ms`, last === undefined ? {} : { cause: last });
    }
    await sleep(every);
  }
}
