import { RULE_TYPES } from './content-schema.js';
import type { RuleType, Validation } from './model.js';

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
