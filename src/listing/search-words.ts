// Words of a listing's `searchQuery` and of what a listed item can be found by.
import { termKey } from '../text/term-key.js';

/** The words of a text, case- and accent-insensitively: runs of letters and digits of its key. */
export function searchWords(text: string): string[] {
  return termKey(text)
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '');
}

/**
 * Whether an item with these words matches a search: every query word begins
 * some word of the item (AND). Each word a user adds narrows the listing, as in
 * any filter box; OR would make a longer, more precise query return more items.
 * A query without words (`""`, `"--"`) filters nothing.
 */
export function matchesSearch(queryWords: readonly string[], itemWords: Iterable<string>): boolean {
  if (queryWords.length === 0) return true;
  const words = [...new Set(itemWords)];
  return queryWords.every((query) => words.some((word) => word.startsWith(query)));
}
