// Both validators (Fastify's Ajv for request parts, TypeBox for rule content) report one
// error per schema keyword at a JSON pointer; clients get one readable message per field,
// named in dotted form, worded the same whichever validator found it.
import { ownErrorMessage } from './error-message.js';
import { fieldName } from './field-name.js';
import type { FieldError } from './schemas.js';

/** What Ajv and TypeBox both report about a failed keyword. */
export interface ValidationIssue {
  readonly instancePath: string;
  readonly keyword: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly message?: string | undefined;
  /** The schema that failed (Ajv's `verbose`): it may carry its own message. */
  readonly parentSchema?: unknown;
}

export interface FieldNaming {
  /** Prefixed to every field (a nested document validated on its own). */
  readonly base?: string;
  /** The name of the whole input, for issues about it rather than one field ('body'). */
  readonly whole?: string;
}

/** One error per field, the first the validator found, in the validator's order. */
export function fieldErrors(issues: readonly ValidationIssue[], naming: FieldNaming = {}): FieldError[] {
  const byField = new Map<string, string>();
  for (const issue of issues) {
    for (const { field, message } of describe(issue, naming.base ?? '')) {
      const name = field || (naming.whole ?? '');
      if (!byField.has(name)) byField.set(name, `${name} ${message}`);
    }
  }
  return [...byField].map(([field, message]) => ({ field, message }));
}

function describe(issue: ValidationIssue, base: string): { field: string; message: string }[] {
  const field = fieldName(issue.instancePath, base);
  const own = ownErrorMessage(issue.parentSchema);
  // A schema's own message speaks of the whole list, not of the item that failed.
  if (own !== undefined) return [{ field: field.replace(/\[\d+\]$/, ''), message: own }];
  const p = issue.params;
  switch (issue.keyword) {
    case 'required':
      // Ajv names one missing property per issue, TypeBox all of them in one.
      return requiredNames(p).map((name) => ({ field: joinField(field, name), message: 'is required' }));
    case 'additionalProperties':
      // Ajv names the extra member; TypeBox also fails it as a `false` schema at its own path.
      return typeof p.additionalProperty === 'string'
        ? [{ field: joinField(field, p.additionalProperty), message: 'is not a known field' }]
        : [];
    case 'boolean':
      return [{ field, message: 'is not a known field' }];
    case 'type':
      return [{ field, message: `must be ${article(p.type as string | string[])}` }];
    case 'format':
      return [{ field, message: formatMessage(String(p.format)) }];
    case 'anyOf':
      // The only unions in inputs are nullable instants; their branch errors say less than this.
      return [{ field, message: formatMessage('date-time') }];
    case 'minimum':
      return [{ field, message: `must be ≥ ${String(p.limit)}` }];
    case 'maximum':
      return [{ field, message: `must be ≤ ${String(p.limit)}` }];
    case 'exclusiveMinimum':
      return [{ field, message: `must be > ${String(p.limit)}` }];
    case 'minLength':
      return [{ field, message: countMessage('at least', Number(p.limit), 'character') }];
    case 'maxLength':
      return [{ field, message: countMessage('at most', Number(p.limit), 'character') }];
    case 'minItems':
      return [{ field, message: countMessage('at least', Number(p.limit), 'item') }];
    case 'maxItems':
      return [{ field, message: countMessage('at most', Number(p.limit), 'item') }];
    case 'pattern':
      return [
        { field, message: p.pattern === NOT_BLANK ? 'must not be blank' : (issue.message ?? 'is invalid') },
      ];
    case 'enum':
      return [{ field, message: `must be one of ${(p.allowedValues as unknown[]).join(', ')}` }];
    default:
      return [{ field, message: issue.message ?? 'is invalid' }];
  }
}

/** The pattern of text that must have a non-space character. */
const NOT_BLANK = '\\S';

function requiredNames(params: Readonly<Record<string, unknown>>): string[] {
  if (Array.isArray(params.requiredProperties)) return params.requiredProperties.map(String);
  return [String(params.missingProperty)];
}

function joinField(parent: string, child: string): string {
  return parent ? `${parent}.${child}` : child;
}

function article(type: string | string[]): string {
  const name = Array.isArray(type) ? type.join(' or ') : type;
  return /^[aeiou]/.test(name) ? `an ${name}` : `a ${name}`;
}

function countMessage(bound: string, limit: number, unit: string): string {
  if (bound === 'at least' && limit === 1) return 'must not be empty';
  return `must have ${bound} ${limit} ${unit}${limit === 1 ? '' : 's'}`;
}

/** What a value of a string format must look like, as the error message says it. */
export function formatMessage(format: string): string {
  if (format === 'date-time') {
    return 'must be an ISO 8601 date-time with a time zone (2026-01-15T14:30:00Z) or null';
  }
  if (format === 'uri') return 'must be an absolute http or https URL';
  return `must be a valid ${format}`;
}
