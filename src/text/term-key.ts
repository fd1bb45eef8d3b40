/** The longest term accepted, in code points after trimming. */
export const MAX_TERM_LENGTH = 100;

// Only the generic combining diacritical blocks are stripped. Removing every
// mark (\p{M}) would turn Japanese が into か and erase Indic vowel signs,
// which changes the word rather than its accent.
const DIACRITICS = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]/g;

// Letters that neither the case fold nor NFD reduce: the final sigma (which
// toLowerCase picks by position, so a prefix would miss its term), the sharp
// s left over from capital ẞ, and letters with a stroke, which have no
// decomposition but are typed without it all the same (łódź → lodz).
const LEFTOVER_LETTERS: Readonly<Record<string, string>> = {
  ς: 'σ',
  ß: 'ss',
  ł: 'l',
  ø: 'o',
  đ: 'd',
  ħ: 'h',
  ŧ: 't',
};
const LEFTOVER = /[ςßłøđħŧ]/g;

const WHITESPACE_RUNS = /\s+/g;
const NOT_PRINTABLE_ASCII = /[^\x20-\x7e]/;

/**
 * The key by which terms are compared, deduplicated, excluded and matched:
 * NFKC, case-folded, diacritics removed, trimmed, inner whitespace collapsed.
 */
export function termKey(term: string): string {
  // Printable ASCII, the common case for terms and typed prefixes, is already
  // in NFKC and has no accents; for it the fold is plain lower-casing, which
  // skips three normalisation passes and the case round trip.
  if (!NOT_PRINTABLE_ASCII.test(term)) return collapseWhitespace(term.toLowerCase());
  // NFKC first so that compatibility forms (ﬁ, Ｅ, ²) fold like their plain
  // letters. Upper-then-lower is a full case fold (ß → ss, ſ → s) that plain
  // toLowerCase lacks.
  const folded = term.normalize('NFKC').toUpperCase().toLowerCase();
  // NFD exposes accents as separate marks; NFC afterwards recomposes what is
  // left (Hangul, kana with dakuten) so equal keys are equal strings.
  const stripped = folded
    .normalize('NFD')
    .replace(DIACRITICS, '')
    .replace(LEFTOVER, (letter) => LEFTOVER_LETTERS[letter] ?? letter)
    .normalize('NFC');
  return collapseWhitespace(stripped);
}

function collapseWhitespace(text: string): string {
  return text.trim().replace(WHITESPACE_RUNS, ' ');
}

export type TermCheck =
  | { readonly valid: true; readonly term: string; readonly key: string }
  | { readonly valid: false; readonly reason: string };

// Control characters only; format characters (ZWJ in emoji, ZWNJ in Persian)
// are legitimate parts of words.
const CONTROL_CHARACTER = /\p{Cc}/u;

/** Checks a custom term and returns it trimmed with its key, or why it is refused. */
export function checkTerm(term: string): TermCheck {
  // Trimming comes first so that a pasted line keeps working when it carries
  // its trailing newline; a control character inside the term is refused.
  const trimmed = term.trim();
  if (trimmed.length === 0) return { valid: false, reason: 'must not be empty' };
  const control = CONTROL_CHARACTER.exec(trimmed);
  if (control !== null) {
    const codePoint = control[0].codePointAt(0) ?? 0;
    return { valid: false, reason: `must not contain control characters (found ${unicodeName(codePoint)})` };
  }
  // A string has at least as many code units as code points: only a long one needs counting.
  const length = trimmed.length > MAX_TERM_LENGTH ? codePointLength(trimmed) : trimmed.length;
  if (length > MAX_TERM_LENGTH) {
    return { valid: false, reason: `must be at most ${MAX_TERM_LENGTH} characters (has ${length})` };
  }
  const key = termKey(trimmed);
  if (key.length === 0) return { valid: false, reason: 'must contain a letter, digit or symbol' };
  return { valid: true, term: trimmed, key };
}

function codePointLength(text: string): number {
  let length = 0;
  for (const _ of text) length++;
  return length;
}

function unicodeName(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}
