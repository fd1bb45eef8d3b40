import { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { levels } from 'pino';

/** Whether a logger prints at this level (loggers that do not say are assumed to). */
export function prints(log: FastifyBaseLogger, level: 'debug' | 'info' | 'error'): boolean {
  const threshold = levels.values[log.level];
  return threshold === undefined ? log.level !== 'silent' : threshold <= levels.values[level]!;
}

// The token endpoint takes client_secret from the query string too (as Lucidworks' API
// reference shows the token request); a URL in a log line must not carry it.
const CLIENT_SECRET_IN_QUERY = /([?&]client_secret=)[^&#]*/gi;

/** The request's URL as log lines show it: a client secret in the query string masked. */
export function loggedUrl(url: string): string {
  return url.replace(CLIENT_SECRET_IN_QUERY, '$1********');
}

/** What the log line of a request says. */
export interface RequestLine {
  method: string;
  url: string;
  client: string | undefined;
  status: number;
  ms: number;
}

/** The fields of a request's one log line (the URL masked, the time rounded to 10 µs). */
export function requestLine(line: RequestLine): RequestLine {
  return { ...line, url: loggedUrl(line.url), ms: Math.round(line.ms * 100) / 100 };
}

/**
 * One log line per request (at its end) instead of Fastify's two: the typeahead endpoint
 * answers on every keystroke, and a second line per request would double the logging cost.
 * Below the level that would print a line, nothing is built either.
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (prints(request.log, 'debug')) {
      request.log.debug({ method: request.method, url: loggedUrl(request.url) }, 'incoming request');
    }
  }

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    const level = error ? 'error' : 'info';
    if (!prints(reply.log, level)) return;
    const line = requestLine({
      method: request.method,
      url: request.url,
      // The client as far as trusted proxies say (request.ip), else the socket's peer.
      client: request.ip,
      status: reply.statusCode,
      ms: reply.elapsedTime,
    });
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
