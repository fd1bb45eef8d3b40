// What a shopper may put in the parameters a profile passes on to Solr, decided from what Solr
// parses rather than by a prefix: local parameters (`{!join fromIndex=…}`) and nested queries
// run wherever Solr's standard parser meets them, not only at the start of a value, and a
// function or a document transformer can hold them too. Every check here is one pass over the
// value (no regular expression), so the query endpoint's cost stays linear in what it is sent.
import { quoted } from '../evaluation/solr-params.js';

/** Lower-case names for which a prefix is enough: every member of the family is refused. */
const FORBIDDEN_PREFIXES = ['shards.', 'stream.', 'json.'];

/**
 * Parameters a shopper may never send and a profile may never allow, whatever their case: they
 * name other cores or collections (`collection`, `shards*`, `fromIndex`, `_route_`, `distrib`),
 * pick another handler or parser (`qt`, `defType`), read or post other content (`stream.*`,
 * `json*`), expand other parameters into this one (`expandMacros` concerns `${…}`), change the
 * answer's format (`wt`, `echoParams`, `debug*`), or are set from evaluation (`q`, `bq`,
 * `elevateIds`, `excludeIds`).
 */
const FORBIDDEN_NAMES = new Set([
  'qt',
  'wt',
  'q',
  'bq',
  'elevateids',
  'excludeids',
  'collection',
  'shards',
  'fromindex',
  '_route_',
  'distrib',
  'deftype',
  'expandmacros',
  'json',
  'echoparams',
  'debug',
  'debugquery',
]);

/** Whether a shopper may never send the parameter (and so no profile may allow it). */
export function isForbiddenParam(name: string): boolean {
  const lower = name.toLowerCase();
  return FORBIDDEN_NAMES.has(lower) || FORBIDDEN_PREFIXES.some((prefix) => lower.startsWith(prefix));
}

/**
 * What Solr would run in a value, written as it is looked for (lower case, no whitespace): local
 * parameters, macro expansion of another parameter, the standard parser's nested-query and
 * function fields, the `query()` function, the subquery transformer, and another core's name.
 */
const CONSTRUCTS = ['{!', '${', '_query_', '_val_', 'query(', '[subquery', 'fromindex'];

/**
 * The construct Solr would run that `value` holds at any position, or undefined. The value is
 * looked at as the standard parser could read it after unescaping (`\{`, `\u007B`), as many
 * times as it holds escaped backslashes (a nested query is unescaped twice), in lower case and
 * without whitespace: more is refused than Solr would run (`{ !x}`, `_QUERY_`), never less.
 */
export function hiddenConstruct(value: string): string | undefined {
  if (!mayHoldConstruct(value)) return undefined;
  let text = value;
  for (;;) {
    const { plain, backslashes } = unescapedOnce(text);
    for (const construct of CONSTRUCTS) if (plain.includes(construct)) return construct;
    // Each pass at least halves the escaped backslashes, so the passes stay few.
    if (!backslashes) return undefined;
    text = plain;
  }
}

/**
 * Whether a construct could be read in the value at all: without an escape, each needs one of
 * its own characters as written (`{`, `$`, `_`, `(`, `[`, the x of fromIndex). Most values
 * (`10`, `brand:acme`, `price asc`) hold none, and are passed by this one look at each character.
 */
function mayHoldConstruct(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    // \ { $ _ ( [ x X
    if (c === 92 || c === 123 || c === 36 || c === 95 || c === 40 || c === 91 || c === 120 || c === 88)
      return true;
  }
  return false;
}

const isSpace = (c: number) =>
  c === 32 ||
  (c >= 9 && c <= 13) ||
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200b) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000 ||
  c === 0xfeff;

function hexAt(text: string, at: number): number {
  if (at + 4 > text.length) return -1;
  let code = 0;
  for (let i = at; i < at + 4; i++) {
    const c = text.charCodeAt(i) | 0x20;
    const digit = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1;
    if (digit < 0) return -1;
    code = code * 16 + digit;
  }
  return code;
}

// Constructs are ASCII: a lone surrogate read as U+FFFD changes nothing that is looked for.
const UTF16 = new TextDecoder('utf-16le');

/** One pass of the Lucene parser's unescaping, lower-cased and without whitespace. */
function unescapedOnce(text: string): { plain: string; backslashes: boolean } {
  // The result is never longer than the text: its characters as codes, made a string at the end.
  const codes = new Uint16Array(text.length);
  let length = 0;
  let backslashes = false;
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c === 92) {
      if (i + 1 === text.length) break;
      const unicode = (text.charCodeAt(i + 1) | 0x20) === 117 ? hexAt(text, i + 2) : -1;
      if (unicode >= 0) {
        c = unicode;
        i += 5;
      } else c = text.charCodeAt(++i);
      if (c === 92) backslashes = true;
    }
    if (isSpace(c)) continue;
    codes[length++] = c >= 65 && c <= 90 ? c + 32 : c;
  }
  const plain = UTF16.decode(codes.subarray(0, length));
  return { plain, backslashes };
}

const isNameStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isNamePart = (c: number) => isNameStart(c) || (c >= 48 && c <= 57);
/** The standard parser's fields that parse their value as a query or a function. */
const MAGIC_FIELDS = new Set(['_query_', '_val_']);

/** Whether `name` is a plain field name as Solr advises them: letters, digits, `_`, not a digit first. */
export function isPlainField(name: string): boolean {
  if (name.length === 0 || name.length > 100 || !isNameStart(name.charCodeAt(0))) return false;
  for (let i = 1; i < name.length; i++) if (!isNamePart(name.charCodeAt(i))) return false;
  return !MAGIC_FIELDS.has(name.toLowerCase());
}

/** The fields a profile lets a shopper name in `sort` and `fl`; undefined: any plain field. */
export interface FieldChoices {
  sortFields?: ReadonlySet<string> | undefined;
  returnFields?: ReadonlySet<string> | undefined;
}

/** A refused value: what it must be instead. */
export class RefusedValue {
  constructor(readonly message: string) {}
}

/**
 * The value of an allowed shopper parameter as searchdeck sends it to Solr, or why it is refused.
 * `fq`, `sort` and `fl` are read in a safe form and written anew; every value is refused when it
 * holds a construct Solr would run.
 */
export function shopperValue(name: string, value: string, fields: FieldChoices): string | RefusedValue {
  const construct = hiddenConstruct(value);
  if (construct !== undefined) {
    return new RefusedValue(
      `${name} holds ${construct === 'fromindex' ? 'fromIndex' : construct}: local parameters, nested queries, functions and other cores are not a shopper's to send`,
    );
  }
  if (name === 'fq') {
    return (
      filterOf(value) ??
      new RefusedValue(
        'fq must be one filter field:value, field:"a phrase", field:[a TO b] or field:(a OR "b"), optionally negated with -',
      )
    );
  }
  if (name === 'sort') return sortOf(value, fields.sortFields);
  if (name === 'fl') return fieldListOf(value, fields.returnFields);
  return value;
}

/** `field asc|desc` pairs separated by commas, each field plain (and listed when the profile lists them). */
function sortOf(value: string, allowed: ReadonlySet<string> | undefined): string | RefusedValue {
  const clauses: string[] = [];
  for (const clause of value.split(',')) {
    const words = clause.split(' ').filter((word) => word !== '');
    const direction = words[1]?.toLowerCase();
    const field = words[0] ?? '';
    if (words.length !== 2 || (direction !== 'asc' && direction !== 'desc') || !isPlainField(field)) {
      return new RefusedValue('sort must be "field asc" or "field desc" pairs separated by commas');
    }
    if (allowed !== undefined && !allowed.has(field)) {
      return new RefusedValue(`sort cannot name ${field}: the profile's sortFields do not list it`);
    }
    clauses.push(`${field} ${direction}`);
  }
  if (clauses.length > 20) return new RefusedValue('sort takes at most 20 fields');
  return clauses.join(',');
}

/** Plain field names (or `*`) separated by commas or spaces, listed when the profile lists them. */
function fieldListOf(value: string, allowed: ReadonlySet<string> | undefined): string | RefusedValue {
  const names = value.split(/[, ]/).filter((name) => name !== '');
  if (names.length === 0 || names.length > 100) return new RefusedValue('fl must name 1-100 fields');
  for (const name of names) {
    const listed = allowed === undefined ? name === '*' || isPlainField(name) : allowed.has(name);
    if (!listed) {
      return new RefusedValue(
        allowed === undefined
          ? `fl must be field names separated by commas (no functions, aliases or transformers): ${name}`
          : `fl cannot name ${name}: the profile's returnFields do not list it`,
      );
    }
  }
  return names.join(',');
}

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
