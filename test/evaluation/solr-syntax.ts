// A reference lexer of the standard (Lucene) query parser's syntax, written from its
// documented grammar: what tokens a generated Solr parameter is read as.

export type Token =
  | { kind: 'and' | 'or' | 'not' | 'plus' | 'minus' | 'lparen' | 'rparen' | 'colon' | 'star' | 'caret' }
  | { kind: 'term'; text: string }
  | { kind: 'quoted'; text: string }
  | { kind: 'number'; text: string }
  | { kind: 'other'; text: string };

const WHITESPACE = new Set([' ', '\t', '\n', '\r', '\u3000']);
// Characters that cannot start a term unescaped; `-` and `+` may continue one.
const NOT_TERM_START = new Set([
  ...WHITESPACE,
  '+',
  '-',
  '!',
  '(',
  ')',
  ':',
  '^',
  '[',
  ']',
  '"',
  '{',
  '}',
  '~',
  '*',
  '?',
  '\\',
  '/',
]);

/** Splits a query into tokens; escaped characters become part of terms, unescaped. */
export function lex(query: string): Token[] {
  const chars = [...query];
  const tokens: Token[] = [];
  let i = 0;
  const startsTerm = (at: number) =>
    chars[at] === '\\' || (at < chars.length && !NOT_TERM_START.has(chars[at]!));
  while (i < chars.length) {
    const c = chars[i]!;
    if (WHITESPACE.has(c)) {
      i++;
      continue;
    }
    const pair = c + (chars[i + 1] ?? '');
    if (pair === '&&' || pair === '||') {
      tokens.push({ kind: pair === '&&' ? 'and' : 'or' });
      i += 2;
      continue;
    }
    const single: Record<string, Token['kind']> = {
      '+': 'plus',
      '-': 'minus',
      '!': 'not',
      '(': 'lparen',
      ')': 'rparen',
      ':': 'colon',
      '*': 'star',
      '^': 'caret',
    };
    if (c === '^') {
      tokens.push({ kind: 'caret' });
      i++;
      let number = '';
      while (i < chars.length && /[0-9.]/.test(chars[i]!)) number += chars[i++];
      if (number !== '') tokens.push({ kind: 'number', text: number });
      continue;
    }
    if (c === '"') {
      let text = '';
      i++;
      while (i < chars.length && chars[i] !== '"') {
        if (chars[i] === '\\' && i + 1 < chars.length) i++;
        text += chars[i++];
      }
      if (i >= chars.length) return [...tokens, { kind: 'other', text: 'unterminated quote' }];
      i++;
      tokens.push({ kind: 'quoted', text });
      continue;
    }
    if (startsTerm(i)) {
      let text = '';
      let image = '';
      while (i < chars.length && (startsTerm(i) || chars[i] === '-' || chars[i] === '+')) {
        if (chars[i] === '\\') {
          if (i + 1 >= chars.length) return [...tokens, { kind: 'other', text: 'dangling escape' }];
          image += chars[i++];
        }
        image += chars[i];
        text += chars[i++];
      }
      // Operators are matched on the written image: an escaped letter makes a term.
      if (image === 'AND' || image === 'OR' || image === 'NOT')
        tokens.push({ kind: image.toLowerCase() as 'and' });
      else tokens.push({ kind: 'term', text });
      continue;
    }
    const kind = single[c];
    tokens.push(kind ? ({ kind } as Token) : { kind: 'other', text: c });
    i++;
  }
  return tokens;
}
