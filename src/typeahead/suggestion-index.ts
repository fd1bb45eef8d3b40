import { termKey } from '../text/term-key.js';
import { AnswerCache } from './answer-cache.js';
import { type Comparator, codePointComparatorFor } from './code-point-order.js';
import { DEFAULT_SUGGESTION_LIMIT } from './schemas.js';
import { type SuggestionAnswer, suggestionAnswer } from './suggestion-answer.js';

export type { SuggestionAnswer } from './suggestion-answer.js';

// Room for about 150 answers of the default size, or many more prefixes that
// differ only in case, enough for the short prefixes most keystrokes ask for;
// 1,000 busy instances add about 100 MiB. A miss costs about 3 µs, a few
// percent of a request, so a larger cache would buy little.
const ANSWER_CACHE_BUDGET_CHARS = 256 * 1024;

const NO_SUGGESTIONS = suggestionAnswer([]);

/** The terms an index is built from, each list in a stable order (see buildSuggestionIndex). */
export interface SuggestionSource {
  readonly included: readonly string[];
  readonly excluded: readonly string[];
  readonly topSearched: readonly string[];
}

/** One instance's served set, answering prefix queries from memory. */
export interface SuggestionIndex {
  /** How many suggestions are served. */
  readonly size: number;
  /** The display forms whose key starts with the prefix's key, in order, at most `limit`. */
  suggestions(prefix: string, limit: number): string[];
  /** The same suggestions serialised as the response body, with its ETag. */
  answer(prefix: string, limit: number): SuggestionAnswer;
}

/**
 * Builds the index of the served set, (included ∪ topSearched) − excluded, by key.
 * When several terms share a key, included beats top searched, and within one
 * list the earlier term wins: custom terms in the order they were added, top
 * searched in rank order, so the most-searched form of a key is shown.
 */
export function buildSuggestionIndex(source: SuggestionSource): SuggestionIndex {
  const excludedKeys = new Set<string>();
  for (const term of source.excluded) excludedKeys.add(termKey(term));
  const displayByKey = new Map<string, string>();
  addServedTerms(displayByKey, source.included, excludedKeys);
  addServedTerms(displayByKey, source.topSearched, excludedKeys);
  // Keys are unique here, so ordering by key alone is the whole order; the
  // display-form tie-break of the contract never has a tie to break.
  const keys = [...displayByKey.keys()];
  const compare = codePointComparatorFor(keys);
  keys.sort(compare);
  const displays = keys.map((key) => displayByKey.get(key)!);
  return new SortedSuggestionIndex(keys, displays, compare);
}

function addServedTerms(
  displayByKey: Map<string, string>,
  terms: readonly string[],
  excluded: Set<string>,
): void {
  for (const term of terms) {
    const folded = termKey(term);
    if (folded.length === 0 || excluded.has(folded) || displayByKey.has(folded)) continue;
    // Reusing the term when it already is its own key halves the strings kept.
    displayByKey.set(folded === term ? term : folded, term);
  }
}

class SortedSuggestionIndex implements SuggestionIndex {
  readonly #keys: readonly string[];
  readonly #displays: readonly string[];
  readonly #compare: Comparator;
  readonly #cache = new AnswerCache(ANSWER_CACHE_BUDGET_CHARS);

  constructor(keys: readonly string[], displays: readonly string[], compare: Comparator) {
    this.#keys = keys;
    this.#displays = displays;
    this.#compare = compare;
    // The first keystroke of every visitor asks for the empty prefix.
    this.answer('', DEFAULT_SUGGESTION_LIMIT);
  }

  get size(): number {
    return this.#keys.length;
  }

  suggestions(prefix: string, limit: number): string[] {
    assertLimit(limit);
    return this.#suggestionsForKey(termKey(prefix), limit);
  }

  answer(prefix: string, limit: number): SuggestionAnswer {
    const cached = this.#cache.get(limit, prefix);
    if (cached !== undefined) return cached;
    assertLimit(limit);
    // Prefixes that differ only in case or accents share one answer: it is
    // stored under the key, which, keys being idempotent, is its own prefix.
    const prefixKey = termKey(prefix);
    const known = this.#cache.get(limit, prefixKey);
    if (known !== undefined) {
      this.#cache.set(limit, prefix, known, true);
      return known;
    }
    const found = this.#suggestionsForKey(prefixKey, limit);
    // Typos and random probes mostly match nothing: one shared answer, no serialising or hashing.
    if (found.length === 0) {
      this.#cache.set(limit, prefixKey, NO_SUGGESTIONS, true);
      this.#cache.set(limit, prefix, NO_SUGGESTIONS, true);
      return NO_SUGGESTIONS;
    }
    const answer = suggestionAnswer(found);
    this.#cache.set(limit, prefixKey, answer, false);
    this.#cache.set(limit, prefix, answer, true);
    return answer;
  }

  #suggestionsForKey(prefixKey: string, limit: number): string[] {
    const keys = this.#keys;
    const start = lowerBound(keys, prefixKey, this.#compare);
    let end = start;
    const last = Math.min(keys.length, start + limit);
    while (end < last && keys[end]!.startsWith(prefixKey)) end++;
    return this.#displays.slice(start, end);
  }
}

function assertLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`limit must be a positive integer, got ${limit}`);
}

/** The first position whose key is not below `key`. */
function lowerBound(keys: readonly string[], key: string, compare: Comparator): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compare(keys[middle]!, key) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}
