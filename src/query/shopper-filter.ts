// A shopper's `fq` read by a small grammar and written anew, so that nothing after the colon is
// parsed by Solr as syntax: every value quoted, the field a plain name.
import { quoted } from '../evaluation/solr-params.js';
import { hexAt, isNamePart, isPlainField, isSpace } from './solr-syntax.js';

/**
 * One filter in the standard parser's syntax, read by a small grammar and written anew with
 * every value quoted: `[-]field:value`, where value is a term, a phrase, `*`, a range or a
 * parenthesised list joined by OR. Undefined when the value is not of that form.
 */
export function filterOf(value: string): string | undefined {
  const reader = new FilterReader(value);
  return reader.filter();
}

/** Characters that end a bare term: the parser's brackets and quotes. */
const isStop = (c: number) =>
  c === 40 || c === 41 || c === 91 || c === 93 || c === 123 || c === 125 || c === 34;

class FilterReader {
  #at = 0;
  constructor(private readonly text: string) {}

  filter(): string | undefined {
    this.#skipSpace();
    const negated = this.#take('-');
    const start = this.#at;
    while (this.#at < this.text.length && isNamePart(this.text.charCodeAt(this.#at))) this.#at++;
    const field = this.text.slice(start, this.#at);
    if (!isPlainField(field) || !this.#take(':')) return undefined;
    const next = this.text[this.#at];
    const value = next === '[' || next === '{' ? this.#range() : next === '(' ? this.#list() : this.#single();
    this.#skipSpace();
    if (value === undefined || this.#at !== this.text.length) return undefined;
    return `${negated ? '-' : ''}${field}:${value}`;
  }

  /** A term, a phrase or `*` (any value). */
  #single(): string | undefined {
    if (this.text[this.#at] === '*' && this.#endsAt(this.#at + 1, '')) {
      this.#at++;
      return '*';
    }
    const term = this.#term(')');
    return term === undefined ? undefined : quoted(term);
  }

  /** `[a TO b]`, `{a TO b}` or mixed, each bound a term, a phrase or `*`. */
  #range(): string | undefined {
    const open = this.text[this.#at++]!;
    this.#skipSpace();
    const lower = this.#bound();
    if (lower === undefined || !this.#skipSpace() || !this.#take('TO') || !this.#skipSpace())
      return undefined;
    const upper = this.#bound();
    this.#skipSpace();
    const close = this.text[this.#at++];
    if (upper === undefined || (close !== ']' && close !== '}')) return undefined;
    return `${open}${lower} TO ${upper}${close}`;
  }

  #bound(): string | undefined {
    if (this.text[this.#at] === '*' && this.#endsAt(this.#at + 1, ']}')) {
      this.#at++;
      return '*';
    }
    const term = this.#term(']}');
    // A quoted bound ending in a backslash or holding a quote is where the parser's reading is unsure.
    if (term === undefined || term.includes('"') || term.includes('\\')) return undefined;
    return quoted(term);
  }

  /** `(a OR "b c" OR …)`, at most 100 values. */
  #list(): string | undefined {
    this.#at++;
    const values: string[] = [];
    for (;;) {
      this.#skipSpace();
      const term = this.#term(')');
      if (term === undefined || values.length === 100) return undefined;
      values.push(quoted(term));
      const spaced = this.#skipSpace();
      if (this.#take(')')) return `(${values.join(' OR ')})`;
      if (!spaced || !this.#take('OR') || !this.#skipSpace()) return undefined;
    }
  }

  /** A phrase (`"…"`, `\` escaping) or a bare term up to whitespace or a stop; unescaped, never empty. */
  #term(stops: string): string | undefined {
    const quote = this.#take('"');
    // Runs without an escape are taken as slices; the string is built only around escapes.
    let term = '';
    let run = this.#at;
    while (this.#at < this.text.length) {
      const c = this.text.charCodeAt(this.#at);
      if (quote ? c === 34 : isSpace(c) || isStop(c) || stops.includes(this.text[this.#at]!)) break;
      if (c === 92) {
        term += this.text.slice(run, this.#at);
        // Unescaped as the parser does: `\uXXXX` is the character, `\x` is x.
        const unicode =
          (this.text.charCodeAt(this.#at + 1) | 0x20) === 117 ? hexAt(this.text, this.#at + 2) : -1;
        if (unicode >= 0) {
          term += String.fromCharCode(unicode);
          this.#at += 5;
        } else if (++this.#at < this.text.length) term += this.text[this.#at];
        run = this.#at + 1;
      }
      this.#at++;
    }
    term += this.text.slice(run, Math.min(this.#at, this.text.length));
    if (quote && !this.#take('"')) return undefined;
    return term === '' ? undefined : term;
  }

  #endsAt(at: number, stops: string): boolean {
    return at === this.text.length || isSpace(this.text.charCodeAt(at)) || stops.includes(this.text[at]!);
  }

  #take(word: string): boolean {
    if (!this.text.startsWith(word, this.#at)) return false;
    this.#at += word.length;
    return true;
  }

  /** Skips whitespace; whether there was some. */
  #skipSpace(): boolean {
    const start = this.#at;
    while (this.#at < this.text.length && isSpace(this.text.charCodeAt(this.#at))) this.#at++;
    return this.#at > start;
  }
}
