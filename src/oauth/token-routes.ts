// `POST /oauth2/token`: the client-credentials grant, answering in OAuth2's
// error format (RFC 6749 §5.2) rather than the common error body; and the oauth
// area of the app.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { parseBasic } from '../http/admin-auth.js';
import type { Area } from '../http/area.js';
import { unavailableError } from '../http/database-unavailable.js';
import { AppError } from '../http/errors.js';
import { FailureLimiter } from '../http/rate-limiter.js';
import { textProblem } from '../http/well-formed-text.js';
import { OAuthError, type OAuthErrorKind, type TokenService } from './token-service.js';

/** The token endpoint of the app's token service (which the Rules API's bearer check shares). */
export function oauthArea(tokens: TokenService): Area {
  return { name: 'oauth', public: (app) => tokenRoutes(app, tokens) };
}

// RFC 6749 §5.2: a client that failed to authenticate gets 401, every other failure 400.
const STATUS_OF: Record<OAuthErrorKind, number> = {
  invalid_request: 400,
  invalid_client: 401,
  unsupported_grant_type: 400,
  invalid_scope: 400,
};

/** The token endpoint, in its own plugin: form bodies and OAuth2 errors stay inside it. */
async function tokenRoutes(app: FastifyInstance, tokens: TokenService): Promise<void> {
  const limiter = new FailureLimiter();
  await app.register(async (plugin) => {
    const oauth = plugin.withTypeProvider<TypeBoxTypeProvider>();
    oauth.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string' },
      (_request, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(String(body))));
      },
    );
    oauth.setErrorHandler((error: { statusCode?: number }, request, reply) => {
      const unavailable = unavailableError(error);
      if (unavailable) {
        // RFC 6749 has no token-endpoint error for this; OAuth2 clients know 503 with
        // Retry-After from HTTP, and `temporarily_unavailable` from the authorization endpoint.
        request.log.error({ err: error }, 'request failed');
        reply.headers(unavailable.headers ?? {});
        return oauthError(reply, 503, 'temporarily_unavailable', unavailable.message);
      }
      // Our own errors carry `status` (e.g. a form field that is not well-formed text).
      const given = error instanceof AppError ? error.status : error.statusCode;
      const status = given !== undefined && given < 500 ? 400 : 500;
      const description = status === 400 ? 'the request is not a valid token request' : 'internal error';
      return oauthError(reply, status, status === 400 ? 'invalid_request' : 'server_error', description);
    });
    oauth.post(
      '/oauth2/token',
      { schema: { tags: ['rules'], summary: 'Get an access token (client credentials)' } },
      async (request, reply) => {
        reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
        const retryAfter = limiter.retryAfter(request.ip);
        if (retryAfter > 0) {
          reply.header('retry-after', String(retryAfter));
          return oauthError(reply, 429, 'invalid_client', 'too many failed attempts; try again later');
        }
        const form = (
          typeof request.body === 'object' && request.body !== null ? request.body : {}
        ) as Record<string, unknown>;
        try {
          const credentials = clientCredentials(request.headers.authorization, form);
          return await tokens.issue(credentials, text(form.grant_type), text(form.scope));
        } catch (error) {
          if (!(error instanceof OAuthError)) throw error;
          if (error.error === 'invalid_client') {
            limiter.recordFailure(request.ip);
            reply.header('www-authenticate', 'Basic realm="searchdeck"');
          }
          return oauthError(reply, STATUS_OF[error.error], error.error, error.description);
        }
      },
    );
  });
}

function clientCredentials(authorization: string | undefined, form: Record<string, unknown>) {
  const basic = parseBasic(authorization);
  const formId = text(form.client_id);
  if (basic && formId !== undefined) {
    throw new OAuthError(
      'invalid_request',
      'authenticate the client one way: Basic or form fields, not both',
    );
  }
  if (basic) {
    // RFC 6749 §2.3.1: both parts are form-urlencoded before Basic encoding.
    const decoded = { clientId: decode(basic.user), clientSecret: decode(basic.password) };
    // Form fields were checked with every body; these come from a header.
    if (textProblem(decoded.clientId) || textProblem(decoded.clientSecret)) {
      throw new OAuthError('invalid_request', 'the client credentials must be text without NUL');
    }
    return decoded;
  }
  const clientSecret = text(form.client_secret);
  if (formId === undefined || clientSecret === undefined) {
    throw new OAuthError('invalid_client', 'client authentication is required');
  }
  return { clientId: formId, clientSecret };
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return value;
  }
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function oauthError(reply: FastifyReply, status: number, error: string, description: string) {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send({ error, error_description: description });
}
