import type { SuggestionAnswer } from './suggestion-answer.js';

// What an entry costs besides its characters, in bytes of heap as measured
// by bench/typeahead-index.ts: the map slot, the answer object and its tag.
const ENTRY_OVERHEAD_CHARS = 160;

/**
 * Remembers serialised answers by limit and prefix, so that a repeated
 * keystroke costs two map lookups: no key folding, search or serialisation.
 * Memory is bounded by a budget in characters.
 */
export class AnswerCache {
  readonly #byLimit = new Map<number, Map<string, SuggestionAnswer>>();
  readonly #budgetChars: number;
  #chars = 0;

  constructor(budgetChars: number) {
    this.#budgetChars = budgetChars;
  }

  get(limit: number, prefix: string): SuggestionAnswer | undefined {
    return this.#byLimit.get(limit)?.get(prefix);
  }

  /** Stores an answer; `shared` when another entry already holds the same answer object. */
  set(limit: number, prefix: string, answer: SuggestionAnswer, shared: boolean): void {
    const cost = prefix.length + ENTRY_OVERHEAD_CHARS + (shared ? 0 : answer.body.length);
    if (cost > this.#budgetChars || this.get(limit, prefix) !== undefined) return;
    // Emptying the whole cache when the budget runs out is cruder than LRU
    // but costs nothing per hit; the prefixes that matter come back at once.
    if (this.#chars + cost > this.#budgetChars) this.clear();
    let byPrefix = this.#byLimit.get(limit);
    if (byPrefix === undefined) {
      byPrefix = new Map();
      this.#byLimit.set(limit, byPrefix);
    }
    byPrefix.set(prefix, answer);
    this.#chars += cost;
  }

  clear(): void {
    this.#byLimit.clear();
    this.#chars = 0;
  }
}
