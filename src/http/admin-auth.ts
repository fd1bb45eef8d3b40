import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AdminVerifier } from '../security/admin-credentials.js';
import { TooManyRequestsError, UnauthorizedError } from './errors.js';
import type { FailureLimiter } from './rate-limiter.js';

const CHALLENGE = 'Basic realm="searchdeck", charset="UTF-8"';

/** Parses `Authorization: Basic …` into user and password, or undefined. */
export function parseBasic(header: string | undefined): { user: string; password: string } | undefined {
  if (!header || !/^basic /i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Requires the admin's HTTP Basic credentials on every route of the given (encapsulated) instance. */
export function requireAdmin(app: FastifyInstance, verifier: AdminVerifier, limiter: FailureLimiter): void {
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const retryAfter = limiter.retryAfter(request.ip);
    if (retryAfter > 0) throw new TooManyRequestsError('too many failed logins; try again later', retryAfter);
    const credentials = parseBasic(request.headers.authorization);
    if (!credentials) throw new UnauthorizedError('admin credentials are required (HTTP Basic)', CHALLENGE);
    if (!(await verifier.verify(credentials.user, credentials.password))) {
      limiter.recordFailure(request.ip);
      throw new UnauthorizedError('invalid admin credentials', CHALLENGE);
    }
  });
}
