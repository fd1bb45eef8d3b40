// The lexical pieces of Solr's standard (Lucene) query syntax that the checks of a shopper's
// values share: whitespace as the parser skips it, `\uXXXX` escapes, plain field names.

/** Whitespace as Java's and Lucene's parsers see it, and the spaces Unicode adds. */
export const isSpace = (c: number) =>
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

/** The code of the four hex digits at `at`, or -1. */
export function hexAt(text: string, at: number): number {
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

export const isNameStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
export const isNamePart = (c: number) => isNameStart(c) || (c >= 48 && c <= 57);
/** The standard parser's fields that parse their value as a query or a function. */
const MAGIC_FIELDS = new Set(['_query_', '_val_']);

/** Whether `name` is a plain field name as Solr advises them: letters, digits, `_`, not a digit first. */
export function isPlainField(name: string): boolean {
  if (name.length === 0 || name.length > 100 || !isNameStart(name.charCodeAt(0))) return false;
  for (let i = 1; i < name.length; i++) if (!isNamePart(name.charCodeAt(i))) return false;
  return !MAGIC_FIELDS.has(name.toLowerCase());
}
