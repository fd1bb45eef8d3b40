import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from './error-handler.js';
import { SHUTTING_DOWN } from './errors.js';
import { CONSOLE_HEADERS, DATA_HEADERS, DOCS_HEADERS, HSTS } from './security-headers.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A client's X-Request-Id is kept when it is reasonable, else a fresh one is made. */
export function requestId(header: string | string[] | undefined): string {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
}

/**
 * The request id and security headers every answer carries, errors before routing included;
 * HSTS only when the request came over HTTPS (`request.protocol` honours the trust-proxy
 * setting), since a browser ignores it over HTTP and it would pin HTTPS on a host that has none.
 */
export function setCommonHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.headers(commonHeaders(request.id, request.url, request.protocol === 'https'));
}

/**
 * The headers every answer starts with, in this order: the request id, the security set of
 * a data answer or of a document, HSTS over HTTPS. Made by the hook and by the early answers.
 */
export function commonHeaders(id: string, url: string, https: boolean): Record<string, string> {
  const headers: Record<string, string> = {
    'x-request-id': id,
    ...documentHeaders(url),
  };
  if (https) headers['strict-transport-security'] = HSTS;
  return headers;
}

/** The browsable API docs and the console load their own scripts and styles; the console shows images from anywhere. */
function documentHeaders(url: string): Record<string, string> {
  if (url.startsWith('/console')) return CONSOLE_HEADERS;
  return url.startsWith('/docs') ? DOCS_HEADERS : DATA_HEADERS;
}

/** The same headers as raw lines, for answers written straight to a socket. */
export function commonHeaderLines(id: string): string[] {
  return Object.entries(commonHeaders(id, '', false)).map(([name, value]) => `${name}: ${value}`);
}

/**
 * Echoes the request id and sets the security headers on every answer. Once the app is
 * closing, new requests get 503 in the common error body (Fastify's own closing answer
 * would have neither it nor these headers); requests already under way finish. An HTTP/1.1
 * request without Host is 400 `malformed-request`.
 */
export function addCommonHeaders(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (request, reply, done) => {
    setCommonHeaders(request, reply);
    if (closing) {
      reply.header('connection', 'close');
      sendError(request, reply, 'not-ready', SHUTTING_DOWN);
      return;
    }
    // Node's server leaves this check to us (`requireHostHeader: false`), so that it is
    // answered in the common body; it sits here to add no hook to every request.
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      reply.header('connection', 'close');
      sendError(request, reply, 'malformed-request', 'an HTTP/1.1 request needs a Host header');
      return;
    }
    done();
  });
}
