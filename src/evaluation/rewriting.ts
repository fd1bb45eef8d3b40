// Live rewrites compiled for one studio, applied to a query's words in REWRITE_ORDER.
import { type LiveRewrite, REWRITE_ORDER, type RewriteType } from '../rewrites/rewrite.js';
import { termKey } from '../text/term-key.js';
import { inWindow, type Window, windowOf } from './effective.js';
import type { AppliedRewrite } from './evaluation.js';

/** A rewrite reduced to words: `from` is what it looks for, `to` what it puts instead. */
interface Compiled {
  id: string;
  type: RewriteType;
  window: Window;
  from: string[];
  to: string[];
  /** Synonyms: the alternatives of `from`. */
  alternatives: string[];
  boost: number | undefined;
}

/** What the rewrites made of a query: its words, and what the Solr query keeps together or expands. */
export interface Rewritten {
  words: string[];
  applied: AppliedRewrite[];
  phrases: Array<{ words: string[]; boost: number | undefined }>;
  synonyms: Array<{ words: string[]; alternatives: string[] }>;
}

const words = (text: string): string[] => {
  const key = termKey(text);
  return key === '' ? [] : key.split(' ');
};

function compile(rewrite: LiveRewrite): Compiled[] {
  const base = {
    id: rewrite.id,
    type: rewrite.type,
    window: windowOf(rewrite.effectiveStart, rewrite.effectiveEnd),
  };
  const none = { to: [], alternatives: [], boost: undefined };
  switch (rewrite.type) {
    case 'removeWords':
      return rewrite.words.flatMap(words).map((word) => ({ ...base, ...none, from: [word] }));
    case 'misspelling':
      return [{ ...base, ...none, from: words(rewrite.misspelling), to: words(rewrite.correction) }];
    case 'phrase':
      return [{ ...base, ...none, from: words(rewrite.phrase), boost: rewrite.boost }];
    case 'headTail':
      return [{ ...base, ...none, from: words(rewrite.query), to: words(rewrite.head) }];
    case 'synonym': {
      const terms = rewrite.synonyms.map((synonym) => termKey(synonym)).filter((key) => key !== '');
      if (rewrite.input !== undefined) {
        return [{ ...base, ...none, from: words(rewrite.input), alternatives: terms }];
      }
      return terms.map((term) => ({
        ...base,
        ...none,
        from: term.split(' '),
        alternatives: terms.filter((other) => other !== term),
      }));
    }
  }
}

/** Rewrites indexed by their first word, per kind, in the order they were given. */
export class CompiledRewrites {
  readonly #byKind = new Map<RewriteType, Map<string, Compiled[]>>();
  readonly count: number;

  constructor(rewrites: readonly LiveRewrite[]) {
    for (const kind of REWRITE_ORDER) this.#byKind.set(kind, new Map());
    for (const rewrite of rewrites) {
      for (const compiled of compile(rewrite)) {
        if (compiled.from.length === 0) continue;
        // Head-tail matches the whole query, so it is found by the whole key.
        const key = compiled.type === 'headTail' ? compiled.from.join(' ') : compiled.from[0]!;
        const index = this.#byKind.get(compiled.type)!;
        const list = index.get(key);
        if (list === undefined) index.set(key, [compiled]);
        else list.push(compiled);
      }
    }
    this.count = rewrites.length;
  }

  /** Applies every kind in REWRITE_ORDER; each position of the query is rewritten at most once per kind. */
  apply(query: string[], at: number): Rewritten {
    const result: Rewritten = { words: query, applied: [], phrases: [], synonyms: [] };
    if (this.count === 0) return result;
    for (const kind of REWRITE_ORDER) {
      const index = this.#byKind.get(kind)!;
      if (index.size === 0) continue;
      if (kind === 'headTail') {
        const match = index.get(result.words.join(' '))?.find((c) => inWindow(c.window, at));
        if (match) {
          result.applied.push(applied(match, result.words, match.to));
          result.words = match.to;
        }
        continue;
      }
      result.words = this.#scan(index, result, at);
    }
    return result;
  }

  /** One left-to-right pass of one kind over the words. */
  #scan(index: Map<string, Compiled[]>, result: Rewritten, at: number): string[] {
    const input = result.words;
    const output: string[] = [];
    let i = 0;
    while (i < input.length) {
      const match = index.get(input[i]!)?.find((c) => inWindow(c.window, at) && startsAt(input, i, c.from));
      if (match === undefined) {
        output.push(input[i]!);
        i++;
        continue;
      }
      const span = input.slice(i, i + match.from.length);
      i += match.from.length;
      switch (match.type) {
        case 'removeWords':
          result.applied.push(applied(match, span, []));
          break;
        case 'misspelling':
          result.applied.push(applied(match, span, match.to));
          output.push(...match.to);
          break;
        case 'phrase':
          result.applied.push({
            id: match.id,
            type: match.type,
            from: span.join(' '),
            to: `"${span.join(' ')}"`,
          });
          result.phrases.push({ words: span, boost: match.boost });
          output.push(...span);
          break;
        case 'synonym':
          result.applied.push({
            id: match.id,
            type: match.type,
            from: span.join(' '),
            to: match.alternatives.join(', '),
          });
          result.synonyms.push({ words: span, alternatives: match.alternatives });
          output.push(...span);
          break;
        case 'headTail':
          break;
      }
    }
    return output;
  }
}

function startsAt(words: string[], at: number, wanted: string[]): boolean {
  if (at + wanted.length > words.length) return false;
  for (let k = 0; k < wanted.length; k++) if (words[at + k] !== wanted[k]) return false;
  return true;
}

function applied(rewrite: Compiled, from: string[], to: string[]): AppliedRewrite {
  return { id: rewrite.id, type: rewrite.type, from: from.join(' '), to: to.join(' ') };
}
