// Long work in small slices. SQLite answers synchronously, so a request that reads,
// parses or writes thousands of rows holds the event loop for all of it unless it
// lets the loop serve what waits (health checks, typeahead answers) now and then.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';

/** Slices after which long work lets the event loop run; well under the 50 ms a stall may last. */
export const SLICE_MS = 10;

/** Tracks how long work has held the loop; `pass()` yields once the slice is used up. */
export class TimeSlice {
  private started = performance.now();

  constructor(private readonly sliceMs = SLICE_MS) {}

  /**
   * Whether the current slice is used up. A loop of steps of a microsecond asks this and
   * awaits `pass()` only then, since an await per step would cost as much as the step.
   */
  due(): boolean {
    return performance.now() - this.started >= this.sliceMs;
  }

  /** Yields to the event loop when the current slice is used up; call between small steps. */
  async pass(): Promise<void> {
    if (!this.due()) return;
    await yieldToEventLoop();
    this.started = performance.now();
  }
}
