// The rules' full-text index: what `searchQuery` matches and `textSearchRelevance`
// ranks by, kept by the engine's own text search. SQLite: an FTS5 table `rule_text`
// (one row per rule, a column per searchable field) keyed through `rule_search.doc`.
// PostgreSQL: a tsvector `rule_search.doc` with a GIN index, fields as weights.
// Both hold the same tokens: each search word of both contents, behind the studio's
// tag, so a studio's words are one key range of the index whatever other studios hold.
// This module makes the tokens and the match texts; their SQL is in text-index-repository.ts.
import type { Rule } from './rule.js';
import { searchableFields } from './text-search.js';

/** The indexed fields, in the FTS5 table's column order. */
export const TEXT_FIELDS = ['name', 'description', 'tags', 'queries', 'values'] as const;
type TextField = (typeof TEXT_FIELDS)[number];

/** How much a match counts in each field: the name most (FTS5 bm25 column weights). */
export const BM25_WEIGHTS = { name: 3, description: 1, tags: 1.5, queries: 1.5, values: 1 } as const;

/** PostgreSQL weight class per field; ts_rank's weights `{D, C, B, A}` keep the same proportions. */
const TS_CLASSES = { name: 'A', description: 'C', tags: 'B', queries: 'B', values: 'C' } as const;
export const TS_WEIGHTS = '{0.1,0.333,0.5,1}';

/**
 * Tokens are cut to this many UTF-8 bytes (PostgreSQL refuses lexemes over 2,047). A query
 * word within the cap matches exactly as before; a longer one is left to the word table.
 */
export const MAX_TOKEN_BYTES = 1_000;

// PostgreSQL keeps at most 256 positions per lexeme and none past 16,383.
const MAX_POSITIONS_PER_TOKEN = 255;
const MAX_POSITION = 16_383;

/** Whether the text index answers these query words exactly (each within the token cap). */
export function indexAnswers(words: readonly string[]): boolean {
  return words.every((word) => Buffer.byteLength(word) <= MAX_TOKEN_BYTES);
}

/** The studio's tag in front of each token: hex (never holds the `x` that ends it). */
function studioTag(studioId: string): string {
  return `${Buffer.from(studioId).toString('hex')}x`;
}

function token(tag: string, word: string): string {
  if (Buffer.byteLength(word) <= MAX_TOKEN_BYTES) return tag + word;
  let cut = '';
  let bytes = 0;
  for (const char of word) {
    bytes += Buffer.byteLength(char);
    if (bytes > MAX_TOKEN_BYTES) break;
    cut += char;
  }
  return tag + cut;
}

/**
 * The tokens of a rule per field: staging's words, then live's words staging lacks in that
 * field, so every word of either content is found (a filter matches staging or live).
 */
export function ruleTokens(rule: Rule): Record<TextField, string[]> {
  const tag = studioTag(rule.studioId);
  const staging = searchableFields(rule.staging);
  const live = rule.live ? searchableFields(rule.live) : undefined;
  const tokens = {} as Record<TextField, string[]>;
  for (const field of TEXT_FIELDS) {
    const words = [...staging[field]];
    if (live) {
      const seen = new Set(words);
      for (const word of live[field]) if (!seen.has(word)) words.push(word);
    }
    tokens[field] = words.map((word) => token(tag, word));
  }
  return tokens;
}

/** The tsvector literal of a rule's tokens, positions in field order, each with its field's class. */
export function tsvectorText(tokens: Record<TextField, string[]>): string {
  const positions = new Map<string, string[]>();
  let position = 0;
  for (const field of TEXT_FIELDS) {
    for (const word of tokens[field]) {
      position = Math.min(position + 1, MAX_POSITION);
      const list = positions.get(word) ?? [];
      if (list.length < MAX_POSITIONS_PER_TOKEN) list.push(`${position}${TS_CLASSES[field]}`);
      positions.set(word, list);
    }
  }
  return [...positions].map(([word, list]) => `${quoteLexeme(word)}:${list.join(',')}`).join(' ');
}

function quoteLexeme(word: string): string {
  return `'${word.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** The FTS5 column of a field (`values` is a keyword there). */
export function ftsColumn(field: TextField): string {
  return field === 'values' ? 'vals' : field;
}

/** Every word as a prefix of some token of the studio: the FTS5 MATCH text. */
export function ftsQuery(studioId: string, words: readonly string[]): string {
  const tag = studioTag(studioId);
  return words.map((word) => `"${tag}${word.replace(/"/g, '""')}"*`).join(' AND ');
}

/** Every word as a prefix of some lexeme of the studio: the tsquery's text. */
export function tsQueryText(studioId: string, words: readonly string[]): string {
  const tag = studioTag(studioId);
  return words.map((word) => `${quoteLexeme(tag + word)}:*`).join(' & ');
}
