// Checks a schema cannot express. They run on a body the schema accepted.
import { actionErrors } from './action-checks.js';
import type { FieldError } from './rule.js';
import { formatMessage } from './schema-errors.js';

interface CheckedInput {
  url?: string;
  bannerUrl?: string;
  pinnedValues?: { value: string; position: number }[];
  conditions?: { effectiveStart?: string | null; effectiveEnd?: string | null };
}

/**
 * Problems of a schema-valid content body: URLs, the effective range, pins that collide, and
 * the actions' own (action-checks.ts).
 */
export function semanticErrors(content: Record<string, unknown>): FieldError[] {
  const input = content as CheckedInput;
  return [...urlErrors(input), ...rangeErrors(input), ...pinErrors(input), ...actionErrors(content)];
}

function urlErrors(input: CheckedInput): FieldError[] {
  return (['url', 'bannerUrl'] as const)
    .filter((field) => input[field] !== undefined && !isAbsoluteHttpUrl(input[field]))
    .map((field) => ({ field, message: `${field} ${formatMessage('uri')}` }));
}

/** The shopper's browser must be able to follow it: no relative, `javascript:` or `mailto:` links. */
export function isAbsoluteHttpUrl(text: string): boolean {
  if (!/^https?:\/\//i.test(text)) return false;
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

function rangeErrors(input: CheckedInput): FieldError[] {
  const errors: FieldError[] = [];
  const bounds = {
    effectiveStart: input.conditions?.effectiveStart,
    effectiveEnd: input.conditions?.effectiveEnd,
  };
  const times: Record<string, number> = {};
  for (const [name, value] of Object.entries(bounds)) {
    if (value === undefined || value === null) continue;
    const time = Date.parse(value);
    // RFC 3339 allows a leap second (…:60) that JavaScript dates cannot hold.
    if (Number.isNaN(time))
      errors.push({
        field: `conditions.${name}`,
        message: `conditions.${name} ${formatMessage('date-time')}`,
      });
    else times[name] = time;
  }
  const { effectiveStart, effectiveEnd } = times;
  if (effectiveStart !== undefined && effectiveEnd !== undefined && effectiveEnd < effectiveStart) {
    errors.push({
      field: 'conditions.effectiveEnd',
      message: 'conditions.effectiveEnd must not be before effectiveStart',
    });
  }
  return errors;
}

// One rule putting two documents on one position, or one document on two, has
// no meaning the search application could follow.
function pinErrors(input: CheckedInput): FieldError[] {
  const errors: FieldError[] = [];
  const positions = new Map<number, number>();
  const values = new Map<string, number>();
  input.pinnedValues?.forEach(({ value, position }, index) => {
    const samePosition = positions.get(position);
    const sameValue = values.get(value);
    if (samePosition !== undefined) {
      errors.push({
        field: `pinnedValues[${index}].position`,
        message: `pinnedValues[${index}].position ${position} is already taken by pinnedValues[${samePosition}]`,
      });
    } else if (sameValue !== undefined) {
      errors.push({
        field: `pinnedValues[${index}].value`,
        message: `pinnedValues[${index}].value ${JSON.stringify(value)} is already pinned by pinnedValues[${sameValue}]`,
      });
    }
    if (samePosition === undefined) positions.set(position, index);
    if (sameValue === undefined) values.set(value, index);
  });
  return errors;
}
