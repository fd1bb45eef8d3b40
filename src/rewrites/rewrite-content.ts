// What staging and live hold for a rewrite: the fields every kind has beside its own
// (rewrite.ts), one schema per kind with its limits and defaults, and how a client's body
// becomes such a content or is refused field by field.
import Type, { type TObject, type TProperties, type TSchema } from 'typebox';
import { Compile, type Validator } from 'typebox/compile';
import Value from 'typebox/value';
import type { FieldError } from '../http/schemas.js';
import { fieldErrors } from '../http/validation-errors.js';
import { termKey } from '../text/term-key.js';
import { REWRITE_TYPES, type RewriteContent, type RewriteType } from './rewrite.js';

// Limits the spec leaves open: a rewrite is a few words, a list of them at most a thousand.
const TERM = { minLength: 1, maxLength: 200, pattern: '\\S' };
const MAX_TERMS = 1000;
const Term = Type.String(TERM);
const Terms = (minItems: number) => Type.Array(Term, { minItems, maxItems: MAX_TERMS });

/** An instant in RFC 3339 form, or null for an open bound. */
const Instant = Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { default: null });

/** Fields every kind has, beside its own. */
export const CommonRewriteFields = {
  description: Type.String({ maxLength: 2000, default: '' }),
  tags: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100, default: [] }),
  effectiveStart: Instant,
  effectiveEnd: Instant,
  deleted: Type.Boolean({ default: false, description: 'Marked for deletion at the next publish.' }),
};

/** The fields of each kind (the names evaluation reads; see rewrite.ts). */
export const RewriteTypeFields = {
  synonym: {
    input: Type.Optional(Type.Union([Term, Type.Null()], { description: 'Set: one-way input → synonyms.' })),
    synonyms: Terms(1),
  },
  misspelling: { misspelling: Term, correction: Term },
  phrase: { phrase: Term, boost: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000 })) },
  headTail: { query: Term, head: Term },
  removeWords: { words: Terms(1) },
} as const satisfies Record<RewriteType, TProperties>;

/** A rewrite's content as stored: its kind's fields and the common ones, defaults applied. */
export type StoredRewriteContent = RewriteContent & {
  description: string;
  tags: string[];
  effectiveStart: string | null;
  effectiveEnd: string | null;
  deleted: boolean;
};

function inputOf(type: RewriteType): TObject {
  const common: Record<string, TSchema> = {};
  for (const [key, schema] of Object.entries(CommonRewriteFields)) common[key] = Type.Optional(schema);
  return Type.Object(
    { type: Type.Literal(type), ...common, ...RewriteTypeFields[type] },
    { additionalProperties: false },
  );
}

const inputs = Object.fromEntries(REWRITE_TYPES.map((type) => [type, inputOf(type)])) as Record<
  RewriteType,
  TObject
>;
const validators = new Map<RewriteType, Validator>(
  REWRITE_TYPES.map((type) => [type, Compile(inputs[type])]),
);
const typeFieldNames = new Set<string>(Object.values(RewriteTypeFields).flatMap((f) => Object.keys(f)));

export type Validation<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

/**
 * The content a body describes, defaults applied, or every problem found. `type` comes from
 * the body, or from `storedType` when the body has none (an update). Members in `ignored`
 * (the read-only fields a client may send back) are left out.
 */
export function validateRewriteContent(
  body: unknown,
  ignored: ReadonlySet<string>,
  storedType?: RewriteType,
): Validation<StoredRewriteContent> {
  if (!isObject(body)) return invalid([{ field: 'body', message: 'body must be a JSON object' }]);
  const type = body.type === undefined ? storedType : normaliseRewriteType(body.type);
  if (type === undefined) {
    const message =
      body.type === undefined ? 'type is required' : `type must be one of ${REWRITE_TYPES.join(', ')}`;
    return invalid([{ field: 'type', message }]);
  }
  const content: Record<string, unknown> = { type };
  const errors: FieldError[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (key === 'type' || ignored.has(key) || value === undefined) continue;
    if (key in inputs[type].properties) content[key] = value;
    else if (typeFieldNames.has(key))
      errors.push({ field: key, message: `${key} is not a field of a ${type} rewrite` });
    else errors.push({ field: key, message: `${key} is not a field of a rewrite` });
  }
  errors.push(...fieldErrors([...validators.get(type)!.Errors(content)]));
  if (errors.length > 0) return invalid(errors);
  const normalised = normalise(content);
  errors.push(...meaningErrors(normalised));
  return errors.length > 0 ? invalid(errors) : { ok: true, value: normalised };
}

/** The kind for a name in any case (`HEADTAIL` → `headTail`), or undefined. */
export function normaliseRewriteType(name: unknown): RewriteType | undefined {
  return typeof name === 'string' ? byLowerCase.get(name.trim().toLowerCase()) : undefined;
}

const byLowerCase = new Map<string, RewriteType>(REWRITE_TYPES.map((type) => [type.toLowerCase(), type]));

/** Checks a schema cannot say: what would rewrite a query into itself, repeated terms, the range. */
function meaningErrors(content: StoredRewriteContent): FieldError[] {
  const errors: FieldError[] = [];
  const same = (a: string, b: string) => termKey(a) === termKey(b);
  const repeated = (field: string, terms: string[]) => {
    const keys = terms.map(termKey);
    if (new Set(keys).size !== keys.length)
      errors.push({ field, message: `${field} must not repeat a term` });
  };
  switch (content.type) {
    case 'synonym':
      repeated('synonyms', content.synonyms);
      if (content.input == null && content.synonyms.length < 2) {
        errors.push({ field: 'synonyms', message: 'synonyms needs at least 2 terms without an input' });
      }
      if (content.input != null && content.synonyms.some((s) => same(s, content.input!))) {
        errors.push({ field: 'synonyms', message: 'synonyms must not repeat the input' });
      }
      break;
    case 'misspelling':
      if (same(content.misspelling, content.correction)) {
        errors.push({ field: 'correction', message: 'correction must differ from the misspelling' });
      }
      break;
    case 'phrase':
      if (termKey(content.phrase).split(' ').length < 2) {
        errors.push({ field: 'phrase', message: 'phrase must have at least 2 words' });
      }
      break;
    case 'headTail':
      if (same(content.query, content.head)) {
        errors.push({ field: 'head', message: 'head must differ from the query' });
      }
      break;
    case 'removeWords':
      repeated('words', content.words);
      break;
  }
  const { effectiveStart, effectiveEnd } = content;
  if (effectiveStart && effectiveEnd && Date.parse(effectiveStart) >= Date.parse(effectiveEnd)) {
    errors.push({ field: 'effectiveEnd', message: 'effectiveEnd must be after effectiveStart' });
  }
  return errors;
}

function normalise(content: Record<string, unknown>): StoredRewriteContent {
  const normalised = Value.Default(inputs[content.type as RewriteType], structuredClone(content)) as Record<
    string,
    unknown
  >;
  // Defaults apply to the common fields only; an absent or null input is a two-way set.
  for (const [key, schema] of Object.entries(CommonRewriteFields)) {
    if (normalised[key] === undefined)
      normalised[key] = structuredClone((schema as unknown as { default: unknown }).default);
  }
  if (normalised.input === null) delete normalised.input;
  for (const key of ['effectiveStart', 'effectiveEnd']) {
    const instant = normalised[key] as string | null;
    // One spelling per instant, so equal contents compare equal and instants sort as text.
    normalised[key] = instant === null ? null : new Date(instant).toISOString();
  }
  return normalised as unknown as StoredRewriteContent;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(errors: FieldError[]): { ok: false; errors: FieldError[] } {
  return { ok: false, errors };
}
