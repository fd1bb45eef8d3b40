import { Type } from 'typebox';

/**
 * Ids of clusters, studios, apps, instances: letters, digits, `-`, `_`, `.`; not `.` or `..`,
 * which a URL cannot hold as a path segment (clients resolve them away), so such a record
 * could never be read, changed or deleted.
 */
export const ID_PATTERN = '^(?!\\.{1,2}$)[A-Za-z0-9._-]+$';

export const IdString = Type.String({ minLength: 1, maxLength: 128, pattern: ID_PATTERN });

/** The common error body, for the OpenAPI document. */
export const ErrorBodySchema = Type.Object(
  {
    timestamp: Type.String(),
    status: Type.Integer(),
    error: Type.String(),
    message: Type.String(),
    path: Type.String(),
    code: Type.String(),
    errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
    details: Type.Optional(Type.Object({}, { additionalProperties: true })),
    requestId: Type.Optional(Type.String()),
  },
  { $id: 'ErrorBody' },
);

/** Standard error answers of the Administrative API, for the OpenAPI document. */
export const adminErrors = {
  400: Type.Ref('ErrorBody'),
  401: Type.Ref('ErrorBody'),
  404: Type.Ref('ErrorBody'),
};
