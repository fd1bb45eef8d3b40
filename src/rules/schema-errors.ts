// TypeBox reports errors per schema keyword at JSON pointers; clients get one
// readable message per field, named in dotted form.
import type { TLocalizedValidationError } from 'typebox/error';
import { fieldName } from '../http/field-name.js';
import type { FieldError } from './rule.js';

/** One error per field, the first the validator found, in the validator's order. */
export function fieldErrors(errors: TLocalizedValidationError[], base = ''): FieldError[] {
  const byField = new Map<string, string>();
  for (const error of errors) {
    for (const { field, message } of describe(error, base)) {
      if (!byField.has(field)) byField.set(field, `${field} ${message}`);
    }
  }
  return [...byField].map(([field, message]) => ({ field, message }));
}

function describe(error: TLocalizedValidationError, base: string): { field: string; message: string }[] {
  const field = fieldName(error.instancePath, base);
  switch (error.keyword) {
    case 'required':
      return error.params.requiredProperties.map((name) => ({
        field: field === '' ? name : `${field}.${name}`,
        message: 'is required',
      }));
    case 'additionalProperties':
      return []; // each extra member also fails as a `false` schema at its own path
    case 'boolean':
      return [{ field, message: 'is not a known field' }];
    case 'type':
      return [{ field, message: `must be ${article(error.params.type)}` }];
    case 'format':
      return [{ field, message: formatMessage(error.params.format) }];
    case 'anyOf':
      // Only nullable instants are unions; their branch errors say less than this.
      return [{ field, message: formatMessage('date-time') }];
    case 'minimum':
      return [{ field, message: `must be ≥ ${error.params.limit}` }];
    case 'maximum':
      return [{ field, message: `must be ≤ ${error.params.limit}` }];
    case 'exclusiveMinimum':
      return [{ field, message: `must be > ${error.params.limit}` }];
    case 'minLength':
      return [{ field, message: countMessage('at least', error.params.limit, 'character') }];
    case 'maxLength':
      return [{ field, message: countMessage('at most', error.params.limit, 'character') }];
    case 'minItems':
      return [{ field, message: countMessage('at least', error.params.limit, 'item') }];
    case 'maxItems':
      return [{ field, message: countMessage('at most', error.params.limit, 'item') }];
    case 'pattern':
      return [{ field, message: 'must not be blank' }]; // the only pattern is "has a non-space"
    case 'enum':
      return [{ field, message: `must be one of ${error.params.allowedValues.join(', ')}` }];
    default:
      return [{ field, message: error.message }];
  }
}

function article(type: string | string[]): string {
  const name = Array.isArray(type) ? type.join(' or ') : type;
  return /^[aeiou]/.test(name) ? `an ${name}` : `a ${name}`;
}

function countMessage(bound: string, limit: number, unit: string): string {
  if (bound === 'at least' && limit === 1) return 'must not be empty';
  return `must have ${bound} ${limit} ${unit}${limit === 1 ? '' : 's'}`;
}

export function formatMessage(format: string): string {
  if (format === 'date-time') {
    return 'must be an ISO 8601 date-time with a time zone (2026-01-15T14:30:00Z) or null';
  }
  if (format === 'uri') return 'must be an absolute http or https URL';
  return `must be a valid ${format}`;
}
