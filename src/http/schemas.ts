import { type Static, type TSchema, type TUnsafe, Type } from 'typebox';
import { type ErrorCode, errorCodes } from './errors.js';

/**
 * Ids of clusters, studios, apps, instances: letters, digits, `-`, `_`, `.`; not `.` or `..`,
 * which a URL cannot hold as a path segment (clients resolve them away), so such a record
 * could never be read, changed or deleted.
 */
export const ID_PATTERN = '^(?!\\.{1,2}$)[A-Za-z0-9._-]+$';

export const IdString = Type.String({ minLength: 1, maxLength: 128, pattern: ID_PATTERN });

const ID = new RegExp(ID_PATTERN);

/** Whether `value` is an id as `IdString` takes it (for ids checked outside a schema). */
export function isId(value: string): boolean {
  return value.length <= 128 && ID.test(value);
}

/** One problem with a request, `field` in dotted form (`pinnedValues[0].position`). */
export const FieldErrorSchema = Type.Object({ field: Type.String(), message: Type.String() });

export type FieldError = Static<typeof FieldErrorSchema>;

/** The common error body: the one shape every error of every interface has. */
export const ErrorBodySchema = Type.Object(
  {
    timestamp: Type.String(),
    status: Type.Integer(),
    error: Type.String(),
    message: Type.String(),
    path: Type.String(),
    // The closed list of codes, so that the OpenAPI document names every one.
    code: Type.Enum(Object.keys(errorCodes) as ErrorCode[]),
    errors: Type.Optional(Type.Array(FieldErrorSchema)),
    details: Type.Optional(Type.Object({}, { additionalProperties: true })),
    requestId: Type.Optional(Type.String()),
  },
  {
    $id: 'ErrorBody',
    examples: [
      {
        timestamp: '2026-11-21T19:15:31.083Z',
        status: 400,
        error: 'Bad Request',
        message: 'name must not be empty',
        path: '/api/studios',
        code: 'invalid-body',
        errors: [{ field: 'name', message: 'name must not be empty' }],
      },
    ],
  },
);

export type ErrorBody = Static<typeof ErrorBodySchema>;

/**
 * A reference to a shared schema (one added with its `$id`) that keeps the schema's type, so
 * a route that names it in its body or reply gets the type from it. A bare `Type.Ref` is
 * `unknown` to the type provider.
 */
export function sharedRef<T extends TSchema>(schema: T): TUnsafe<Static<T>> {
  const id = (schema as { $id?: unknown }).$id;
  if (typeof id !== 'string') throw new Error('a shared schema needs an $id');
  return Type.Unsafe<Static<T>>(Type.Ref(id));
}

/** The answer of a route that answers 204 without a body. */
export const NoContent = Type.Null();

/** Standard error answers of the Administrative API, for the OpenAPI document. */
export const adminErrors = {
  400: sharedRef(ErrorBodySchema),
  401: sharedRef(ErrorBodySchema),
  404: sharedRef(ErrorBodySchema),
};

/** The schema with examples: the OpenAPI document shows them, and "Try it out" at /docs starts from them. */
export function withExamples<T extends TSchema>(schema: T, ...examples: Static<T>[]): T {
  return Type.With(schema, { examples }) as unknown as T;
}
