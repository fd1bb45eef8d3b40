import type { FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { type FieldError, ValidationError } from './errors.js';

type JsonSchema = {
  type?: string;
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
};

/** What a value of each scalar JSON type may be sent as: itself, or a string the validator coerces. */
const accepted: Record<string, (value: unknown) => boolean> = {
  integer: (value) => typeof value === 'number' || typeof value === 'string',
  number: (value) => typeof value === 'number' || typeof value === 'string',
  boolean: (value) => typeof value === 'boolean' || typeof value === 'string',
  string: (value) => typeof value === 'string',
};

const expected: Record<string, string> = {
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean',
  string: 'a string',
};

/**
 * Fastify's validator coerces every scalar into every other (`null` → 0, `1` → true, `12` → "12").
 * Clients may send numbers and booleans as strings ("3000", "true"), nothing else: this hook,
 * run before validation, rejects the other mismatches with a 400 naming the field.
 */
export function strictScalars(schema: TSchema) {
  return async (request: FastifyRequest): Promise<void> => {
    const errors: FieldError[] = [];
    collectMismatches(schema as JsonSchema, request.body, '', errors);
    if (errors.length > 0) throw new ValidationError(errors);
  };
}

function collectMismatches(schema: JsonSchema, value: unknown, path: string, errors: FieldError[]): void {
  if (schema.type === 'object' && schema.properties && isPlainObject(value)) {
    for (const [name, property] of Object.entries(schema.properties)) {
      if (name in value) collectMismatches(property, value[name], path ? `${path}.${name}` : name, errors);
    }
    return;
  }
  const type = schema.type ?? (schema.enum?.every((v) => typeof v === 'string') ? 'string' : undefined);
  const check = type === undefined ? undefined : accepted[type];
  if (type !== undefined && check && !check(value)) {
    errors.push({ field: path, message: `${path} must be ${expected[type]}` });
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
