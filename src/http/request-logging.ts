import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

/**
 * One log line per request (at its end) instead of Fastify's two: the typeahead endpoint
 * answers on every keystroke, and a second line per request would double the logging cost.
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ method: request.method, url: request.url }, 'incoming request');
  }

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    const line = {
      method: request.method,
      url: request.url,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 100) / 100,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
