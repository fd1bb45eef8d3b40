// The Solr request parameters of an evaluation, written in the syntax of Solr's standard
// (Lucene) query parser. Every value is a quoted term and every field name is escaped
// character by character, so no value can end its term early or add an operator.
import type { Effect, SolrParams } from './evaluation.js';
import type { Rewritten } from './rewriting.js';

// Characters the standard parser gives a meaning (plus whitespace, which ends a term).
const SPECIAL = /[+\-&|!(){}[\]^"~*?:\\/\s]/gu;
const OPERATOR_WORD = /^(AND|OR|NOT)$/;

/** A value as one quoted term: inside quotes only the quote and the backslash need escaping. */
export function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, '\\$&')}"`;
}

/** A field name, or a bare word, with every special character escaped. */
export function escapedTerm(text: string): string {
  const escaped = text.replace(SPECIAL, (c) => `\\${c}`);
  // The operator words are operators only as written; an escaped letter makes them a term.
  return OPERATOR_WORD.test(escaped) ? `\\${escaped}` : escaped;
}

/** One item of Solr's comma-separated id lists (elevateIds, excludeIds), which unescape `\`. */
function listItem(id: string): string {
  return id.replace(/[\\,]/g, '\\$&');
}

/** A boost in the parser's number syntax, digits with an optional fraction (no exponent). */
export function weight(w: number): string {
  const plain = String(w);
  if (!plain.includes('e')) return plain;
  return w.toFixed(20).replace(/\.?0+$/, '');
}

/** The parameters a search application adds to its Solr request. */
export function solrParams(rewritten: Rewritten, effect: Effect): SolrParams {
  const fq = [
    ...effect.blocked.map(
      ({ fieldName, values }) => `-${escapedTerm(fieldName)}:(${values.map(quoted).join(' OR ')})`,
    ),
    ...effect.filters.map(
      ({ fieldName, values }) => `${escapedTerm(fieldName)}:(${values.map(quoted).join(' OR ')})`,
    ),
  ];
  const bq = [
    ...effect.boosts.map(
      ({ fieldName, value, weight: w }) => `${escapedTerm(fieldName)}:${quoted(value)}^${weight(w)}`,
    ),
    ...effect.buries.map(
      ({ fieldName, value, weight: w }) => `(*:* -${escapedTerm(fieldName)}:${quoted(value)})^${weight(w)}`,
    ),
    // A query boost's query was written anew in its safe form when the rule was saved.
    ...effect.queryBoosts.map(({ query, weight: w }) =>
      w > 0 ? `(${query})^${weight(w)}` : `(*:* -(${query}))^${weight(-w)}`,
    ),
    ...rewritten.phrases.flatMap(({ words, boost }) =>
      boost === undefined || !(boost > 0) || !Number.isFinite(boost)
        ? []
        : [`${quoted(words.join(' '))}^${weight(boost)}`],
    ),
  ];
  const excluded = effect.blocked.find((b) => b.fieldName === 'id')?.values ?? [];
  return {
    q: solrQuery(rewritten),
    fq,
    bq,
    elevateIds: effect.pins.length === 0 ? null : effect.pins.map((p) => listItem(p.value)).join(','),
    excludeIds: excluded.length === 0 ? null : excluded.map(listItem).join(','),
    params: effect.params,
    facetFields: effect.facets ?? [],
  };
}

/**
 * The rewritten query for `q`: words escaped, phrases quoted, synonyms as alternatives
 * (`(laptop OR "notebook")`); all documents when the rewrites removed every word.
 */
export function solrQuery({ words, phrases, synonyms }: Rewritten): string {
  if (words.length === 0) return '*:*';
  const parts: string[] = [];
  let i = 0;
  while (i < words.length) {
    const synonym = synonyms.find((s) => startsAt(words, i, s.words));
    if (synonym !== undefined) {
      const term =
        synonym.words.length === 1 ? escapedTerm(synonym.words[0]!) : quoted(synonym.words.join(' '));
      parts.push(`(${[term, ...synonym.alternatives.map(quoted)].join(' OR ')})`);
      i += synonym.words.length;
      continue;
    }
    const phrase = phrases.find((p) => p.words.length > 1 && startsAt(words, i, p.words));
    if (phrase !== undefined) {
      parts.push(quoted(phrase.words.join(' ')));
      i += phrase.words.length;
      continue;
    }
    parts.push(escapedTerm(words[i]!));
    i++;
  }
  return parts.join(' ');
}

function startsAt(words: readonly string[], at: number, wanted: readonly string[]): boolean {
  if (wanted.length === 0 || at + wanted.length > words.length) return false;
  for (let k = 0; k < wanted.length; k++) if (words[at + k] !== wanted[k]) return false;
  return true;
}
