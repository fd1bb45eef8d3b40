// Turns a client's rule body into a normalised content, or says what is wrong
// with it, field by field.
import { Compile, type Validator } from 'typebox/compile';
import Value from 'typebox/value';
import { normaliseActions } from './action-checks.js';
import type { FieldError, RuleContent, RuleIdentity, RuleType, Validation } from './rule.js';
import { ContentInputSchemas, RULE_TYPES, TypeFields } from './rule-content.js';
import { fieldErrors } from './schema-errors.js';
import { IDENTITY_FIELDS, READ_ONLY_FIELDS } from './schemas.js';
import { semanticErrors } from './semantic-checks.js';

const validators = new Map<RuleType, Validator>(
  RULE_TYPES.map((type) => [type, Compile(ContentInputSchemas[type])]),
);
const ignored = new Set<string>([...READ_ONLY_FIELDS, ...IDENTITY_FIELDS]);
const typeFieldNames = new Set<string>(Object.values(TypeFields).flatMap((fields) => Object.keys(fields)));

/**
 * The content a body describes, defaults applied, or every problem found.
 * `type` comes from the body, or from `options.type` when the body has none (an update).
 */
export function validateRuleContent(
  body: unknown,
  options: { type?: RuleType } = {},
): Validation<RuleContent> {
  if (!isObject(body)) return invalid([{ field: 'body', message: 'body must be a JSON object' }]);
  const type = typeOf(body, options.type);
  if (!type.ok) return type;

  const { content, errors } = contentMembers(body, type.value);
  errors.push(...fieldErrors(validators.get(type.value)!.Errors(content)));
  if (errors.length === 0) errors.push(...semanticErrors(content));
  if (errors.length > 0) return invalid(errors);
  return { ok: true, value: normalise(content) };
}

function typeOf(body: Record<string, unknown>, stored: RuleType | undefined): Validation<RuleType> {
  if (body.type !== undefined) return normaliseRuleType(body.type);
  if (stored !== undefined) return { ok: true, value: stored };
  return invalid([{ field: 'type', message: 'type is required' }]);
}

/** The members of the body that belong to a content of `type`; others are errors or ignored. */
function contentMembers(body: Record<string, unknown>, type: RuleType) {
  const own = ContentInputSchemas[type].properties;
  const content: Record<string, unknown> = { type };
  const errors: FieldError[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (key === 'type' || ignored.has(key) || value === undefined) continue;
    if (key in own) content[key] = value;
    else if (typeFieldNames.has(key))
      errors.push({ field: key, message: `${key} is not a field of a ${type} rule` });
    else errors.push({ field: key, message: `${key} is not a field of a rule` });
  }
  return { content, errors };
}

function normalise(content: Record<string, unknown>): RuleContent {
  const withDefaults = Value.Default(ContentInputSchemas[content.type as RuleType], structuredClone(content));
  normaliseActions(withDefaults as Record<string, unknown>);
  // The input schema is the content schema with defaults optional; after Default it is the content.
  const normalised = withDefaults as RuleContent;
  const conditions = normalised.conditions;
  conditions.effectiveStart = canonicalInstant(conditions.effectiveStart);
  conditions.effectiveEnd = canonicalInstant(conditions.effectiveEnd);
  return normalised;
}

// One spelling per instant, so that equal contents compare equal and instants
// sort as strings.
function canonicalInstant(instant: string | null): string | null {
  return instant === null ? null : new Date(instant).toISOString();
}

export interface NewRule {
  content: RuleContent;
  externalId: string | null;
  contentType: RuleIdentity['contentType'];
  migratedId: string | null;
}

/** A create body: the content plus the fields fixed at creation. */
export function validateNewRule(body: unknown): Validation<NewRule> {
  const content = validateRuleContent(body);
  const errors = content.ok ? [] : [...content.errors];
  const identity = isObject(body) ? body : {};
  const externalId = optionalText(identity, 'externalId', errors);
  const migratedId = optionalText(identity, 'migratedId', errors);
  const contentType = contentTypeOf(identity, errors);
  if (!content.ok || errors.length > 0) return invalid(errors);
  return { ok: true, value: { content: content.value, externalId, contentType, migratedId } };
}

/** An update body: the new staging content; `type`, `externalId` and `contentType` must not change. */
export function validateRuleUpdate(body: unknown, stored: RuleIdentity): Validation<RuleContent> {
  const content = validateRuleContent(body, { type: stored.type });
  if (!isObject(body)) return content;
  const errors = content.ok ? [] : [...content.errors];
  const type = body.type === undefined ? undefined : normaliseRuleType(body.type);
  if (type?.ok && type.value !== stored.type) {
    errors.push({ field: 'type', message: `type cannot change (the rule is a ${stored.type})` });
  }
  for (const key of ['externalId', 'contentType'] as const) {
    if (body[key] !== undefined && body[key] !== stored[key]) {
      errors.push({ field: key, message: `${key} cannot change (it is ${JSON.stringify(stored[key])})` });
    }
  }
  return errors.length > 0 ? invalid(errors) : content;
}

function contentTypeOf(body: Record<string, unknown>, errors: FieldError[]): NewRule['contentType'] {
  const value = body.contentType ?? 'RULE';
  if (value === 'RULE' || value === 'QUERY_REWRITE') return value;
  errors.push({ field: 'contentType', message: 'contentType must be one of RULE, QUERY_REWRITE' });
  return 'RULE';
}

function optionalText(body: Record<string, unknown>, key: string, errors: FieldError[]): string | null {
  const value = body[key] ?? null;
  if (value === null || (typeof value === 'string' && value.length >= 1 && value.length <= 200)) return value;
  errors.push({ field: key, message: `${key} must be a string of 1 to 200 characters, or null` });
  return null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(errors: FieldError[]): { ok: false; errors: FieldError[] } {
  return { ok: false, errors };
}

const byLowerCase = new Map<string, RuleType>(RULE_TYPES.map((type) => [type.toLowerCase(), type]));

/**
 * The camelCase type for a name given in any case (`BANNER` → `banner`).
 * `field` names the input in the error, as the listing's filter is `types`.
 */
export function normaliseRuleType(name: unknown, field = 'type'): Validation<RuleType> {
  const type = typeof name === 'string' ? byLowerCase.get(name.trim().toLowerCase()) : undefined;
  if (type !== undefined) return { ok: true, value: type };
  return { ok: false, errors: [{ field, message: `${field} must be one of ${RULE_TYPES.join(', ')}` }] };
}
