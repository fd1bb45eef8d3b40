// Rule content is validated by TypeBox; its errors are worded by the one translator that
// also words the request validator's.
import type { TLocalizedValidationError } from 'typebox/error';
import { fieldErrors as translate } from '../http/validation-errors.js';
import type { FieldError } from './rule.js';

export { formatMessage } from '../http/validation-errors.js';

/** One error per field, the first the validator found, in the validator's order. */
export function fieldErrors(errors: TLocalizedValidationError[], base = ''): FieldError[] {
  return translate(errors, { base });
}
