export type Comparator = (a: string, b: string) => number;

/**
 * Orders strings by their Unicode code points. JavaScript's `<` compares
 * UTF-16 code units, which puts characters above U+FFFF (emoji, rare CJK)
 * before U+E000–U+FFFF; code-point order is what every other system agrees on.
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

// Moves surrogates (D800–DFFF) above E000–FFFF so that code-unit comparison
// gives code-point order; strings that share a prefix stay contiguous either way.
function codePointRank(codeUnit: number): number {
  if (codeUnit >= 0xe000) return codeUnit - 0x800;
  if (codeUnit >= 0xd800) return codeUnit + 0x2000;
  return codeUnit;
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const SURROGATE = /[\ud800-\udfff]/;

/**
 * The cheapest comparator that orders these strings by code point: without
 * surrogates code units are code points, and the engine's own comparison is
 * about three times faster than comparing in JavaScript.
 */
export function codePointComparatorFor(strings: readonly string[]): Comparator {
  return strings.some((text) => SURROGATE.test(text)) ? compareCodePoints : compareCodeUnits;
}
