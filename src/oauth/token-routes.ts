// `POST /oauth2/token` (and `/oauth2/{authorizationServerId}/v1/token`, the form of the token
// URL in Lucidworks' API reference): the client-credentials grant, answering in OAuth2's
// error format (RFC 6749 §5.2) rather than the common error body; and the oauth area of the app.
import type { FastifyInstance, FastifyReply, RouteShorthandOptionsWithHandler } from 'fastify';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Area, TypedApp } from '../http/area.js';
import { parseBasic } from '../http/basic-credentials.js';
import { unavailableError } from '../http/database-unavailable.js';
import { bodyAbandoned, httpOf } from '../http/error-handler.js';
import { AppError } from '../http/errors.js';
import type { DocumentedOnly } from '../http/openapi.js';
import type { FailureLimiter } from '../http/rate-limiter.js';
import { textProblem } from '../http/well-formed-text.js';
import type { Database } from '../storage/schema.js';
import {
  AuthorizationServerParams,
  formFields,
  gatherTokenParameters,
  TokenQuery,
} from './token-parameters.js';
import {
  OAuthError,
  type OAuthErrorKind,
  TOKEN_LIFETIME_SECONDS,
  type TokenService,
} from './token-service.js';

/**
 * The token endpoint of the app's token service (which the Rules API's bearer check
 * shares), with the app's limit on failed token requests.
 */
export function oauthArea(tokens: TokenService, limiter: FailureLimiter): Area {
  return { name: 'oauth', public: (app, ctx) => tokenRoutes(app, ctx.store.db, tokens, limiter) };
}

const OAuthErrorBody = Type.Object(
  {
    error: Type.Enum([
      'invalid_request',
      'invalid_client',
      'unsupported_grant_type',
      'invalid_scope',
      'temporarily_unavailable',
    ]),
    error_description: Type.String(),
  },
  { examples: [{ error: 'invalid_client', error_description: 'unknown client or wrong secret' }] },
);

/** The token endpoint in the OpenAPI document (RFC 6749 §4.4 and §5). */
const tokenEndpointDocument: DocumentedOnly = {
  consumes: ['application/x-www-form-urlencoded'],
  body: Type.Object(
    {
      grant_type: Type.Literal('client_credentials'),
      scope: Type.Optional(
        Type.String({
          description: 'Space-separated; default: every scope of the client',
          examples: ['commercestudio.rules'],
        }),
      ),
      client_id: Type.Optional(Type.String({ description: 'Instead of Basic authentication' })),
      client_secret: Type.Optional(Type.String({ description: 'Instead of Basic authentication' })),
    },
    { examples: [{ grant_type: 'client_credentials' }] },
  ),
  response: {
    200: Type.Object(
      {
        token_type: Type.Literal('Bearer'),
        expires_in: Type.Integer({ description: 'Seconds' }),
        access_token: Type.String(),
        scope: Type.String(),
      },
      {
        description: 'An access token for the Rules API',
        examples: [
          {
            token_type: 'Bearer',
            expires_in: TOKEN_LIFETIME_SECONDS,
            access_token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdHVkaW9faWQiOiJzaG9wIn0.c2lnbmF0dXJl',
            scope: 'commercestudio.rules commercestudio.rewrites',
          },
        ],
      },
    ),
    400: Type.Object(OAuthErrorBody.properties, { description: 'Not a valid token request (RFC 6749 §5.2)' }),
    401: Type.Object(OAuthErrorBody.properties, { description: 'Unknown client or wrong secret' }),
    429: Type.Object(OAuthErrorBody.properties, {
      description: 'Too many failed attempts from this address; retry after `Retry-After` seconds',
    }),
    503: Type.Object(OAuthErrorBody.properties, { description: 'The database is unavailable' }),
  },
};

// RFC 6749 §5.2: a client that failed to authenticate gets 401, every other failure 400.
const STATUS_OF: Record<OAuthErrorKind, number> = {
  invalid_request: 400,
  invalid_client: 401,
  unsupported_grant_type: 400,
  invalid_scope: 400,
};

/** The token endpoint, in its own plugin: form bodies and OAuth2 errors stay inside it. */
async function tokenRoutes(
  app: FastifyInstance,
  db: Kysely<Database>,
  tokens: TokenService,
  limiter: FailureLimiter,
): Promise<void> {
  await app.register(async (oauth: TypedApp) => {
    oauth.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string' },
      (_request, body, done) => {
        done(null, formFields(String(body)));
      },
    );
    oauth.setErrorHandler((error: { statusCode?: number }, request, reply) => {
      // How the parameters were given (twice, say), found before the handler ran.
      if (error instanceof OAuthError) {
        return oauthError(reply, STATUS_OF[error.error], error.error, error.description);
      }
      if (bodyAbandoned(request, error)) {
        return oauthError(reply, 400, 'invalid_request', 'the connection closed before the body arrived');
      }
      const unavailable = unavailableError(error);
      if (unavailable) {
        // RFC 6749 has no token-endpoint error for this; OAuth2 clients know 503 with
        // Retry-After from HTTP, and `temporarily_unavailable` from the authorization endpoint.
        request.log.error({ err: error }, 'request failed');
        reply.headers(httpOf(unavailable).headers);
        return oauthError(reply, 503, 'temporarily_unavailable', unavailable.message);
      }
      // Our own errors have the status of their code (e.g. a form field that is not well-formed text).
      const given = error instanceof AppError ? httpOf(error).status : error.statusCode;
      const status = given !== undefined && given < 500 ? 400 : 500;
      const description = status === 400 ? 'the request is not a valid token request' : 'internal error';
      return oauthError(reply, status, status === 400 ? 'invalid_request' : 'server_error', description);
    });
    const summary = 'Get an access token (client credentials)';
    const tokenRoute: RouteShorthandOptionsWithHandler = {
      schema: { tags: ['rules'], operationId: 'requestToken', summary, querystring: TokenQuery },
      // The form is parsed and checked by the handler, and errors are OAuth2's: described only.
      config: { openapi: tokenEndpointDocument },
      preValidation: gatherTokenParameters,
      handler: async (request, reply) => {
        reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
        const client = request.ip;
        const blocked = await limiter.retryAfter(client);
        if (blocked > 0) return tooManyFailures(reply, blocked);
        // Counted while the secret's hash is checked, so parallel guesses cannot pass the
        // limit; a failure only when the client fails to authenticate.
        const attempt = await limiter.begin(client);
        if (attempt.retryAfter > 0) return tooManyFailures(reply, attempt.retryAfter);
        const form = (
          typeof request.body === 'object' && request.body !== null ? request.body : {}
        ) as Record<string, unknown>;
        try {
          const credentials = clientCredentials(request.headers.authorization, form);
          const token = await tokens.issue(db, credentials, text(form.grant_type), text(form.scope));
          // The token is issued: a check that cannot be ended now stays counted until its window ends.
          await attempt.release().catch((error) => request.log.warn({ err: error }, 'attempt not released'));
          return token;
        } catch (error) {
          if (error instanceof OAuthError && error.error === 'invalid_client') {
            await attempt.failed();
            reply.header('www-authenticate', 'Basic realm="searchdeck"');
            return oauthError(reply, STATUS_OF[error.error], error.error, error.description);
          }
          await attempt.release().catch(() => {});
          if (!(error instanceof OAuthError)) throw error;
          return oauthError(reply, STATUS_OF[error.error], error.error, error.description);
        }
      },
    };
    oauth.post('/oauth2/token', tokenRoute);
    // The API reference's token URL names an authorization server; searchdeck is one, whatever its id.
    oauth.post('/oauth2/:authorizationServerId/v1/token', {
      ...tokenRoute,
      schema: {
        ...tokenRoute.schema,
        operationId: 'requestTokenOfAuthorizationServer',
        summary: `${summary}; any authorization server id`,
        params: AuthorizationServerParams,
      },
    });
  });
}

function tooManyFailures(reply: FastifyReply, retryAfter: number) {
  reply.header('retry-after', String(retryAfter));
  return oauthError(reply, 429, 'invalid_client', 'too many failed attempts; try again later');
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
