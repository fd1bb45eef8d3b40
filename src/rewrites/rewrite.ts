// What a query rewrite is, as the evaluation of live content sees it. The Query Rewrites
// API stores these with staging and live content like rules; evaluation applies the live
// ones to a shopper's query before the rules match it.

export const REWRITE_TYPES = ['synonym', 'misspelling', 'phrase', 'headTail', 'removeWords'] as const;
export type RewriteType = (typeof REWRITE_TYPES)[number];

/**
 * Synonyms: one-way when `input` is set (a query containing `input` also means each of
 * `synonyms`), two-way when it is not (every entry of `synonyms` means all the others).
 */
export interface SynonymRewrite {
  type: 'synonym';
  input?: string;
  synonyms: string[];
}

/** A misspelled word or phrase and what it should have been. */
export interface MisspellingRewrite {
  type: 'misspelling';
  misspelling: string;
  correction: string;
}

/** Words that belong together and are searched as one phrase, optionally boosted. */
export interface PhraseRewrite {
  type: 'phrase';
  phrase: string;
  boost?: number;
}

/** A long query whose head carries its meaning: `query` is searched as `head`. */
export interface HeadTailRewrite {
  type: 'headTail';
  query: string;
  head: string;
}

/** Words dropped from every query, e.g. "cheap" or "buy". */
export interface RemoveWordsRewrite {
  type: 'removeWords';
  words: string[];
}

/** The content of a rewrite as staging and live hold it. */
export type RewriteContent =
  | SynonymRewrite
  | MisspellingRewrite
  | PhraseRewrite
  | HeadTailRewrite
  | RemoveWordsRewrite;

/** A live rewrite as evaluation uses it: its id, its content, and when it is in effect. */
export type LiveRewrite = RewriteContent & {
  id: string;
  /** ISO 8601; absent means always. */
  effectiveStart?: string | null;
  effectiveEnd?: string | null;
};

/**
 * The order in which evaluation applies rewrites: words removed first, then misspellings
 * corrected, phrases kept together, head-tail reduced, and synonyms expanded last.
 */
export const REWRITE_ORDER: readonly RewriteType[] = [
  'removeWords',
  'misspelling',
  'phrase',
  'headTail',
  'synonym',
];
