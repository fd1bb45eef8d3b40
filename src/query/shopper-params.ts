// What a shopper may put in the parameters a profile passes on to Solr, decided from what Solr
// parses rather than by a prefix: local parameters (`{!join fromIndex=…}`) and nested queries
// run wherever Solr's standard parser meets them, not only at the start of a value, and a
// function or a document transformer can hold them too. Every check here is one pass over the
// value (no regular expression), so the query endpoint's cost stays linear in what it is sent.
import { filterOf } from './shopper-filter.js';
import { hexAt, isPlainField, isSpace } from './solr-syntax.js';

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
