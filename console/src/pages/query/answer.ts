// The query endpoint's answer as the workbench reads it (Solr's JSON with `fusion`), and what
// a product card shows of a document: its display fields (the profile's `display`, with the
// defaults of docs/query.md) and what the rules did to it.

export interface FiredRule {
  id: string;
  name: string;
  type: string;
  precedence: number;
}

interface Pin {
  value: string;
  position: number;
  rule: string;
}

interface Weighted {
  fieldName: string;
  value: string;
  weight: number;
  rule: string;
}

export interface Fusion {
  query: string;
  rewrittenQuery: string;
  rewrites: { id: string; type: string; from: string; to: string }[];
  rules: FiredRule[];
  redirect: string | null;
  banners: { url: string; zone: string }[];
  /** The data the rules send to the shop's page (`responseValue` rules), or null. */
  responseValues?: Record<string, unknown> | null;
  /** The facets in the order the rules give (`setFacetList`), or null. */
  facets?: string[] | null;
  effect?: {
    pins: Pin[];
    boosts: Weighted[];
    buries: Weighted[];
    blocked: { fieldName: string; value: string; rule: string }[];
  };
  staging?: boolean;
  node: string;
  droppedParams: string[];
}

export type Doc = Record<string, unknown>;

export interface Answer {
  responseHeader?: { QTime?: number; params?: Record<string, unknown> };
  response?: { numFound: number; docs: Doc[] };
  fusion: Fusion;
}

/** The profile's display fields (each optional). */
export interface Display {
  title?: string;
  image?: string;
  price?: string;
}

/** A field's value as text: the first of a list (Solr's multi-valued fields). */
function text(value: unknown): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  if (first === undefined || first === null || first === '') return undefined;
  return typeof first === 'string' ? first : String(first);
}

export function idOf(doc: Doc): string | undefined {
  return text(doc.id);
}

/** The card's title: the display field, else `name`, else `title`, else the id. */
export function titleOf(doc: Doc, display: Display | undefined): string {
  const fields = display?.title ? [display.title] : ['name', 'title'];
  for (const field of fields) {
    const value = text(doc[field]);
    if (value !== undefined) return value;
  }
  return idOf(doc) ?? 'A product without an id';
}

/** The product's picture: an http(s) URL in the display field (default `image`), or none. */
export function imageOf(doc: Doc, display: Display | undefined): string | undefined {
  const url = text(doc[display?.image ?? 'image']);
  return url !== undefined && /^https?:\/\//i.test(url) ? url : undefined;
}

/** The price as the shop shows numbers (two decimals), or the field's text; undefined without one. */
export function priceOf(doc: Doc, display: Display | undefined): string | undefined {
  const held = doc[display?.price ?? 'price'];
  const value = Array.isArray(held) ? held[0] : held;
  if (typeof value === 'number')
    return value.toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return text(value);
}

/** What a rule did to a product, in a merchandiser's words. */
export interface Mark {
  kind: 'pinned' | 'boosted' | 'buried';
  text: string;
}

function has(doc: Doc, fieldName: string, value: string): boolean {
  const held = doc[fieldName];
  return (Array.isArray(held) ? held : [held]).some((v) => v !== undefined && String(v) === value);
}

/** The pins, boosts and buries of the answer that concern the product, each with its rule's name. */
export function marksOf(doc: Doc, fusion: Fusion): Mark[] {
  const effect = fusion.effect;
  if (!effect) return [];
  const named = (id: string) => fusion.rules.find((r) => r.id === id)?.name ?? 'a rule';
  const marks: Mark[] = [];
  const id = idOf(doc);
  for (const pin of effect.pins) {
    if (pin.value === id)
      marks.push({ kind: 'pinned', text: `Pinned at position ${pin.position} by “${named(pin.rule)}”` });
  }
  const because = (fieldName: string, value: string) =>
    fieldName === 'id' ? '' : ` (${fieldName} ${value})`;
  for (const boost of effect.boosts) {
    if (has(doc, boost.fieldName, boost.value))
      marks.push({
        kind: 'boosted',
        text: `Boosted by “${named(boost.rule)}”${because(boost.fieldName, boost.value)}`,
      });
  }
  for (const bury of effect.buries) {
    if (has(doc, bury.fieldName, bury.value))
      marks.push({
        kind: 'buried',
        text: `Buried by “${named(bury.rule)}”${because(bury.fieldName, bury.value)}`,
      });
  }
  return marks;
}

/** The banners with the name of the rule that showed each (banner rules fire in `rules`' order, one banner each). */
export function bannersOf(fusion: Fusion): { url: string; zone: string; rule: string | undefined }[] {
  const rules = fusion.rules.filter((r) => r.type === 'banner');
  return fusion.banners.map((banner, i) => ({ ...banner, rule: rules[i]?.name }));
}

/** The rule whose redirect applied: the first redirect rule in precedence order. */
export function redirectRule(fusion: Fusion): string | undefined {
  return fusion.rules.find((r) => r.type === 'redirect')?.name;
}

/** "1st", "2nd", "3rd", "11th", … */
export function ordinal(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th'}`;
}

/** A value sent to the page as it reads: a text as it is, anything else as JSON. */
export function valueText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
