// Text that is not well-formed Unicode cannot be stored as sent: PostgreSQL refuses NUL, and
// both engines turn a lone surrogate into U+FFFD. Such input is refused where it enters, so
// what a client is told was stored is what reads back, on either engine.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type FieldError, ValidationError } from './errors.js';

// NUL, a high surrogate not followed by a low one, or a low one not preceded by a high one.
const MALFORMED = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// What may be malformed; far cheaper to test, and most text has neither NUL nor surrogates.
const SUSPECT = /[\0\uD800-\uDFFF]/;

/** Why a string cannot be taken as text, or undefined when it can. */
export function textProblem(text: string): string | undefined {
  if (!SUSPECT.test(text)) return undefined;
  const found = MALFORMED.exec(text);
  if (found === null) return undefined;
  return found[0] === '\0'
    ? 'must not contain the NUL character (U+0000)'
    : 'must be valid Unicode (it holds an unpaired surrogate)';
}

interface Pending {
  value: unknown;
  parent: Pending | undefined;
  key: string | number | undefined;
}

/**
 * The first string in a parsed JSON value (member names included) that is not well-formed
 * text, named as the error body names fields (`pinnedValues[0].value`). Iterative, as a
 * body may nest deeper than the call stack.
 */
export function malformedText(value: unknown, root = ''): FieldError | undefined {
  const found = inspect(value);
  if (found === 'too-deep') return { field: root, message: `${root || 'the value'} ${TOO_DEEP}` };
  return found === 'malformed' ? locate(value, root) : undefined;
}

/**
 * How deep arrays and objects may nest in what a client sends. No document of the API comes
 * near it; without a bound, code that walks a client's JSON recursively (copying, redacting,
 * comparing) could be made to exhaust the call stack.
 */
export const MAX_NESTING = 64;
const TOO_DEEP = `must not nest arrays and objects more than ${MAX_NESTING} levels deep`;

// Runs on every request (typeahead keystrokes included), so it keeps no paths and leaves
// naming the field to `locate`, which runs only when something is wrong. The depth of each
// pending value is kept beside it, in a second stack of numbers.
function inspect(value: unknown): 'malformed' | 'too-deep' | undefined {
  if (typeof value === 'string') return textProblem(value) === undefined ? undefined : 'malformed';
  if (typeof value !== 'object' || value === null) return undefined;
  const pending: object[] = [];
  const depths: number[] = [];
  let depth = 1;
  for (let current: object | undefined = value; current !== undefined; ) {
    if (depth > MAX_NESTING) return 'too-deep';
    if (Array.isArray(current)) {
      for (const item of current) {
        if (typeof item === 'string') {
          if (textProblem(item) !== undefined) return 'malformed';
        } else if (typeof item === 'object' && item !== null) {
          pending.push(item);
          depths.push(depth + 1);
        }
      }
    } else {
      for (const key in current) {
        if (textProblem(key) !== undefined) return 'malformed';
        const member = (current as Record<string, unknown>)[key];
        if (typeof member === 'string') {
          if (textProblem(member) !== undefined) return 'malformed';
        } else if (typeof member === 'object' && member !== null) {
          pending.push(member);
          depths.push(depth + 1);
        }
      }
    }
    current = pending.pop();
    depth = depths.pop() ?? 0;
  }
  return undefined;
}

function locate(value: unknown, root: string): FieldError | undefined {
  const stack: Pending[] = [{ value, parent: undefined, key: undefined }];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const current = entry.value;
    if (typeof current === 'string') {
      const problem = textProblem(current);
      if (problem) return fieldError(pathOf(entry, root), problem);
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], parent: entry, key: i });
    } else if (typeof current === 'object' && current !== null) {
      const members = Object.entries(current);
      for (const [key, member] of members) {
        const problem = textProblem(key);
        if (problem) return fieldError(pathOf({ value: member, parent: entry, key }, root), problem);
      }
      // Reversed, so that members are visited in their order and the first fault is named.
      for (const [key, member] of members.reverse()) stack.push({ value: member, parent: entry, key });
    }
  }
  return undefined;
}

function fieldError(field: string, problem: string): FieldError {
  return { field, message: `${field} ${problem}` };
}

// Keys are shown as JSON shows them, so a NUL in a member name is named `\u0000`, not sent raw.
function pathOf(entry: Pending, root: string): string {
  const keys: Array<string | number> = [];
  for (let at: Pending | undefined = entry; at?.key !== undefined; at = at.parent) keys.unshift(at.key);
  const name = keys.reduce<string>((field, key) => {
    if (typeof key === 'number') return `${field}[${key}]`;
    const shown = JSON.stringify(key).slice(1, -1);
    return field === '' ? shown : `${field}.${shown}`;
  }, '');
  return name || root;
}

/**
 * Refuses, on every route, path parameters, query strings and bodies (whatever parsed them)
 * holding text that is not well-formed: 400 naming the field.
 */
export function requireWellFormedText(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    done(inputProblem(request));
  });
}

function inputProblem(request: FastifyRequest): ValidationError | undefined {
  const parameter = malformedText(request.params) ?? malformedText(request.query);
  if (parameter) return new ValidationError([parameter], 'invalid-parameter');
  const body = request.body === undefined ? undefined : malformedText(request.body, 'body');
  return body ? new ValidationError([body]) : undefined;
}
