import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { unavailableError } from './database-unavailable.js';
import { ownErrorMessage } from './error-message.js';
import { AppError, type ErrorCode, errorCodes, type FieldError } from './errors.js';
import { fieldName } from './field-name.js';

export interface ErrorBody {
  timestamp: string;
  status: number;
  error: string;
  message: string;
  path: string;
  code: ErrorCode;
  errors?: FieldError[];
  details?: Record<string, unknown>;
  requestId?: string;
}

/** Writes the common error body: the one shape every error of every interface has. */
export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  code: ErrorCode,
  message: string,
  extra: { errors?: FieldError[] | undefined; details?: Record<string, unknown> | undefined } = {},
): FastifyReply {
  const status = errorCodes[code];
  const body: ErrorBody = {
    timestamp: new Date().toISOString(),
    status,
    error: STATUS_CODES[status] ?? 'Error',
    message,
    path: request.url.split('?')[0] ?? request.url,
    code,
  };
  if (extra.errors) body.errors = extra.errors;
  if (extra.details) body.details = extra.details;
  if (status >= 500) body.requestId = String(request.id);
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}

/** Installs the one error handler and the not-found handler of the whole service. */
export function installErrorHandling(app: FastifyInstance, allowedMethods: (url: string) => string[]): void {
  app.setErrorHandler((thrown: FastifyError | AppError, request, reply) => {
    const error = unavailableError(thrown) ?? thrown;
    if (error instanceof AppError) {
      if (error.headers) reply.headers(error.headers);
      if (error.status >= 500) request.log.error({ err: thrown }, 'request failed');
      return sendError(request, reply, error.code, error.message, error);
    }
    if (error.validation) {
      const errors = error.validation.map((issue) => fieldError(issue, error.validationContext));
      const code = error.validationContext === 'body' ? 'invalid-body' : 'invalid-parameter';
      return sendError(request, reply, code, errors.map((e) => e.message).join('; '), { errors });
    }
    const mapped = fastifyErrorCode(error, request);
    if (mapped) return sendError(request, reply, mapped.code, mapped.message);
    request.log.error({ err: error }, 'request failed');
    return sendError(request, reply, 'internal-error', 'internal error');
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? request.url;
    const methods = allowedMethods(path);
    if (methods.length > 0) {
      reply.header('allow', methods.join(', '));
      return sendError(request, reply, 'method-not-allowed', `${request.method} is not allowed on ${path}`);
    }
    return sendError(request, reply, 'not-found', `no such resource: ${path}`);
  });
}

/** Fastify's own client errors (body parsing, size, media type) mapped to our codes. */
function fastifyErrorCode(
  error: FastifyError,
  request: FastifyRequest,
): { code: ErrorCode; message: string } | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { code: 'malformed-json', message: 'the request body is not valid JSON' };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return {
        code: 'payload-too-large',
        message: `the request body is larger than ${byteSize(request.routeOptions.bodyLimit)}`,
      };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { code: 'malformed-request', message: 'the body is not as long as Content-Length says' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { code: 'unsupported-media-type', message: 'unsupported Content-Type' };
  }
  if (error instanceof SyntaxError && error.statusCode === 400) {
    return { code: 'malformed-json', message: 'the request body is not valid JSON' };
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    const code = (Object.keys(errorCodes) as ErrorCode[]).find((c) => errorCodes[c] === status);
    return { code: code ?? 'invalid-parameter', message: error.message };
  }
  return undefined;
}

/** A byte count as people write limits: `8 MiB`, `512 KiB`, `100 bytes`. */
function byteSize(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

interface ValidationIssue {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string | undefined;
  parentSchema?: unknown;
}

function fieldError(issue: ValidationIssue, context: string | undefined): FieldError {
  let field = fieldName(issue.instancePath);
  if (issue.keyword === 'required') field = joinField(field, String(issue.params.missingProperty));
  if (issue.keyword === 'additionalProperties')
    field = joinField(field, String(issue.params.additionalProperty));
  const name = field || context || 'body';
  const own = ownErrorMessage(issue.parentSchema);
  if (own !== undefined) {
    // A schema's own message speaks of the whole list, not of the item that failed.
    const list = name.replace(/\[\d+\]$/, '');
    return { field: list, message: `${list} ${own}` };
  }
  return { field: name, message: `${name} ${describeIssue(issue)}` };
}

function joinField(parent: string, child: string): string {
  return parent ? `${parent}.${child}` : child;
}

function describeIssue(issue: ValidationIssue): string {
  const p = issue.params;
  switch (issue.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a known field';
    case 'enum':
      return `must be one of ${(p.allowedValues as unknown[]).join(', ')}`;
    case 'type':
      return `must be ${p.type === 'integer' ? 'an integer' : `a ${String(p.type)}`}`;
    case 'minimum':
      return `must be ≥ ${String(p.limit)}`;
    case 'maximum':
      return `must be ≤ ${String(p.limit)}`;
    case 'minLength':
      return Number(p.limit) === 1
        ? 'must not be empty'
        : `must be at least ${String(p.limit)} characters long`;
    case 'maxLength':
      return `must be at most ${String(p.limit)} characters long`;
    case 'maxItems':
      return `must have at most ${String(p.limit)} items`;
    case 'minItems':
      return `must have at least ${String(p.limit)} items`;
    case 'format':
      return `must be a valid ${String(p.format)}`;
    default:
      return issue.message ?? 'is invalid';
  }
}
