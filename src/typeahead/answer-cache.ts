import type { SuggestionAnswer } from './suggestion-answer.js';

/**
 * Remembers serialised answers by limit and raw prefix, so that a repeated
 * keystroke costs two map lookups: no key folding, search or serialisation.
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

  set(limit: number, prefix: string, answer: SuggestionAnswer): void {
    const cost = prefix.length + answer.body.length;
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
