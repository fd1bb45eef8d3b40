import type { FieldError } from './schemas.js';

/**
 * The closed list of machine-readable error codes, each with the HTTP status the error
 * handler answers it with (`httpOf`). Every error answer of every interface carries one of
 * these (docs/errors.md).
 */
export const errorCodes = {
  'malformed-json': 400,
  'malformed-request': 400,
  'invalid-parameter': 400,
  'invalid-body': 400,
  'limit-exceeded': 400,
  'cluster-unreachable': 400,
  'not-a-solr-cluster': 400,
  'not-supported': 400,
  'solr-rejected': 400,
  unauthorized: 401,
  forbidden: 403,
  'not-found': 404,
  'method-not-allowed': 405,
  'request-timeout': 408,
  conflict: 409,
  'payload-too-large': 413,
  'unsupported-media-type': 415,
  'too-many-requests': 429,
  'headers-too-large': 431,
  'internal-error': 500,
  'solr-failed': 502,
  'not-ready': 503,
  unavailable: 503,
  'solr-timeout': 504,
} as const;

export type ErrorCode = keyof typeof errorCodes;

export type { FieldError };

export interface AppErrorOptions {
  errors?: FieldError[];
  details?: Record<string, unknown>;
}

/**
 * A domain error: a code of the closed list, a message and its data, nothing of HTTP. The
 * error handler turns it into the status, the headers and the common error body (`httpOf`).
 */
export class AppError extends Error {
  readonly errors: FieldError[] | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message);
    this.name = new.target.name;
    this.errors = options.errors;
    this.details = options.details;
  }
}

export class NotFoundError extends AppError {
  constructor(message: string) {
    super('not-found', message);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, details?: Record<string, unknown>, field?: string) {
    super('conflict', message, {
      ...(details ? { details } : {}),
      ...(field === undefined ? {} : { errors: [{ field, message }] }),
    });
  }

  /** Another resource holds the value of `field`, which must be unique. */
  static taken(field: string, message: string): ConflictError {
    return new ConflictError(message, undefined, field);
  }
}

/** Bad input in the body (or a query parameter, with `code` 'invalid-parameter'). */
export class ValidationError extends AppError {
  constructor(
    errors: FieldError[],
    code: 'invalid-body' | 'invalid-parameter' = 'invalid-body',
    message = errors.map((e) => e.message).join('; '),
  ) {
    super(code, message, { errors });
  }
}

export class LimitExceededError extends AppError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('limit-exceeded', message, details ? { details } : {});
  }
}

/** No valid credential; `challenge` says which credential the interface takes (WWW-Authenticate). */
export class UnauthorizedError extends AppError {
  constructor(
    message: string,
    readonly challenge: string,
  ) {
    super('unauthorized', message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string) {
    super('forbidden', message);
  }
}

/** Too many failures from one client; it may try again after `retryAfterSeconds`. */
export class TooManyRequestsError extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('too-many-requests', message);
  }
}

/** Something the request needs cannot work now (the database); retry after `retryAfterSeconds`. */
export class UnavailableError extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('unavailable', message);
  }
}

/** What a request is told when the service stops before it could be done. */
export const SHUTTING_DOWN = 'the service is shutting down; retry on another node';

/**
 * The service stopped waiting for something the request needs (a Solr answer) because it is
 * shutting down: 503 `not-ready`, and the connection closes after the answer. Expected at a
 * stop, so not logged as a fault.
 */
export class ShuttingDownError extends AppError {
  constructor() {
    super('not-ready', SHUTTING_DOWN);
  }
}
