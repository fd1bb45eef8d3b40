import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { unavailableError } from './database-unavailable.js';
import {
  AppError,
  type ErrorCode,
  errorCodes,
  ShuttingDownError,
  TooManyRequestsError,
  UnauthorizedError,
  UnavailableError,
} from './errors.js';
import type { ErrorBody, FieldError } from './schemas.js';
import { fieldErrors } from './validation-errors.js';

/** How an error is answered over HTTP. */
export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
}

/**
 * The status an error is answered with, from its code, and the headers its data calls for.
 * Every answer of an `AppError` (the common body, the token endpoint's) takes them from here.
 */
export function httpOf(error: AppError): HttpAnswer {
  return { status: errorCodes[error.code], headers: headersOf(error) };
}

function headersOf(error: AppError): Record<string, string> {
  if (error instanceof UnauthorizedError) return { 'www-authenticate': error.challenge };
  if (error instanceof TooManyRequestsError || error instanceof UnavailableError) {
    return { 'retry-after': String(error.retryAfterSeconds) };
  }
  // The request is answered by a node that stops: the client's retry should find another.
  if (error instanceof ShuttingDownError) return { connection: 'close' };
  return {};
}

/** The common error body's required fields: the one shape every error of every interface has. */
export function errorBody(code: ErrorCode, message: string, path: string): ErrorBody {
  const status = errorCodes[code];
  return {
    timestamp: new Date().toISOString(),
    status,
    error: STATUS_CODES[status] ?? 'Error',
    message,
    path,
    code,
  };
}

/** Writes the common error body as the answer to a request. */
export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  code: ErrorCode,
  message: string,
  extra: { errors?: FieldError[] | undefined; details?: Record<string, unknown> | undefined } = {},
): FastifyReply {
  const body = errorBody(code, message, request.url.split('?')[0] ?? request.url);
  const { status } = body;
  if (extra.errors) body.errors = extra.errors;
  if (extra.details) body.details = extra.details;
  if (status >= 500) body.requestId = String(request.id);
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}

/**
 * Whether the request's body stopped before its end: the client went away, or the request
 * timeout cut it off (answered 408 already). No one is left to answer, and it is no fault of
 * ours or of the database's, whatever the stream's error code says (ECONNRESET); logged at
 * info as such.
 */
export function bodyAbandoned(request: FastifyRequest, error: unknown): boolean {
  if (!request.raw.readableAborted) return false;
  request.log.info({ err: error }, 'request abandoned: the connection closed before its body arrived');
  return true;
}

/** Installs the one error handler and the not-found handler of the whole service. */
export function installErrorHandling(app: FastifyInstance, allowedMethods: (url: string) => string[]): void {
  app.setErrorHandler((thrown: FastifyError | AppError, request, reply) => {
    if (bodyAbandoned(request, thrown)) {
      return sendError(request, reply, 'malformed-request', 'the connection closed before the body arrived');
    }
    const error = unavailableError(thrown) ?? thrown;
    if (error instanceof AppError) {
      const { status, headers } = httpOf(error);
      reply.headers(headers);
      if (status >= 500 && !(error instanceof ShuttingDownError)) {
        request.log.error({ err: thrown }, 'request failed');
      }
      return sendError(request, reply, error.code, error.message, error);
    }
    if (error.validation) {
      const errors = fieldErrors(error.validation, { whole: error.validationContext ?? 'body' });
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
