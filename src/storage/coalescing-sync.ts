// The loop every in-memory copy of the database (typeahead's registry, evaluation's compiled
// indexes, the query endpoint's profiles) runs to follow it: one pass at a time, and a call
// made while a pass runs gets one more pass after it, so it sees the change that prompted it.

/** Runs `pass` for every `run()`, never two at once, folding the calls made meanwhile into one more pass. */
export class CoalescingSync {
  readonly #pass: () => Promise<void>;
  #running: Promise<void> | undefined;
  #again = false;

  constructor(pass: () => Promise<void>) {
    this.#pass = pass;
  }

  /** Settles once a pass that started after this call has finished (or the first one failed). */
  run(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      try {
        do {
          this.#again = false;
          await this.#pass();
        } while (this.#again);
      } finally {
        this.#running = undefined;
      }
    })();
    return this.#running;
  }

  /** Waits for the pass under way, if any, ignoring its failure (for shutdown). */
  async settled(): Promise<void> {
    await this.#running?.catch(() => {});
  }
}
