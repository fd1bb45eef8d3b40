// Errors answered before a request reaches a route: Fastify's router (a path that is not
// valid percent-encoding) and Node's HTTP parser (an unknown method, a bad Content-Length,
// headers over 16 KiB). Both would otherwise answer in a body of their own, without the
// request id or the security headers.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { commonHeaderLines, setCommonHeaders } from './common-headers.js';
import { errorBody, sendError } from './error-handler.js';
import { type ErrorCode, errorCodes } from './errors.js';
import { requestLine } from './request-logging.js';

/** Fastify's `frameworkErrors`: router errors in the common error body. */
export function answerFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  setCommonHeaders(request, reply);
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      sendError(request, reply, 'invalid-parameter', 'the path is not valid percent-encoded UTF-8');
      return;
    case 'FST_ERR_MAX_PARAM_LENGTH':
      sendError(request, reply, 'invalid-parameter', 'a path parameter is too long');
      return;
    default:
      request.log.error({ err: error }, 'request failed');
      sendError(request, reply, 'internal-error', 'internal error');
  }
}

/** What Node's parser reported, as our code and message. */
function clientErrorAnswer(code: string): { code: ErrorCode; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'headers-too-large', message: 'the request line and headers are larger than 16 KiB' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'request-timeout', message: 'the request did not arrive in time' };
    default:
      return { code: 'malformed-request', message: 'the request is not valid HTTP/1.1' };
  }
}

// Node keeps the response under way on a socket here; once its head is out, nothing more
// may be written (Node's own handler checks the same).
type ServerSocket = Socket & { _httpMessage?: { headersSent?: boolean; req?: { url?: string } } | null };

/**
 * Fastify's `clientErrorHandler`: Node's parser gave up on a request (so there is no
 * request object and no route). Writes the whole answer by hand, with a fresh request id
 * and the security headers, and closes the connection as Node does: the rest of the bytes
 * on it cannot be trusted to start a request.
 */
export function answerClientError(
  this: FastifyInstance,
  error: Error & { code?: string },
  socket: Socket,
): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const id = randomUUID();
  const answer = clientErrorAnswer(error.code ?? '');
  const inFlight = (socket as ServerSocket)._httpMessage;
  // A request whose body did not arrive in time was read up to its headers: its path is known.
  const path =
    requestPath((error as { rawPacket?: unknown }).rawPacket) || (inFlight?.req?.url?.split('?')[0] ?? '');
  // The line every request gets, as far as there is one: no method, the path when it is known.
  const line = requestLine({
    method: '',
    url: path,
    client: socket.remoteAddress,
    status: errorCodes[answer.code],
    ms: 0,
  });
  this.log.info({ reqId: id, ...line, code: error.code }, 'malformed request refused');
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  writeAnswer(socket, answer.code, answer.message, path, id);
}

/** Writes a whole error answer in the common body straight to a socket, and closes it. */
function writeAnswer(socket: Socket, code: ErrorCode, message: string, path: string, id: string): void {
  const body = errorBody(code, message, path);
  const { status } = body;
  const json = JSON.stringify(body);
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(json)}`,
    'Connection: close',
    ...commonHeaderLines(id),
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${json}`, () => socket.destroy());
}

const REQUEST_LINE = /^[!-~]{1,32} (\/[!-~]*)/;

/** The path of the request line, when the bytes Node could not parse begin with one. */
function requestPath(rawPacket: unknown): string {
  if (!Buffer.isBuffer(rawPacket)) return '';
  const start = rawPacket.subarray(0, 2048).toString('latin1');
  const path = REQUEST_LINE.exec(start)?.[1] ?? '';
  return path.split('?')[0] ?? '';
}

/**
 * Requests Node itself would answer with an empty body or none: an `Expect` other than
 * `100-continue` (RFC 9110 lets a server ignore it; the request is served as if it had none,
 * instead of Node's bare 417), and CONNECT (Node closes the connection without a word: we are
 * no proxy). An HTTP/1.1 request without Host is checked with the common headers.
 */
export function takeOverNodeAnswers(app: FastifyInstance): void {
  app.server.on('checkExpectation', (req, res) => app.routing(req, res));
  app.server.on('connect', (_req, socket: Socket) => {
    writeAnswer(socket, 'method-not-allowed', 'CONNECT is not allowed: this is no proxy', '', randomUUID());
  });
}
