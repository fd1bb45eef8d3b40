import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { AppParts } from './app-parts.js';
import { clustersArea } from './clusters/routes.js';
import type { Config } from './config.js';
import { requireAdmin } from './http/admin-auth.js';
import { type AppContext, type Area, appScope, type Tuning } from './http/area.js';
import { addCommonHeaders, requestId } from './http/common-headers.js';
import { answerClientError, answerFrameworkError, takeOverNodeAnswers } from './http/early-errors.js';
import { installErrorHandling } from './http/error-handler.js';
import { ValidationError } from './http/errors.js';
import { createMetrics } from './http/metrics.js';
import { healthRoutes, metricsRoute } from './http/operations-routes.js';
import { FailureLimiter } from './http/rate-limiter.js';
import { OneLinePerRequest } from './http/request-logging.js';
import { ErrorBodySchema, ID_PATTERN } from './http/schemas.js';
import { buildValidator } from './http/validation.js';
import { requireWellFormedText } from './http/well-formed-text.js';
import { linksArea } from './links/routes.js';
import { externalIssuerSettings } from './oauth/external-issuer.js';
import { oauthArea } from './oauth/token-routes.js';
import { TokenService } from './oauth/token-service.js';
import { rulesArea } from './rules/routes.js';
import { rulesParts } from './rules/rules-parts.js';
import { AdminVerifier } from './security/admin-credentials.js';
import type { Store } from './storage/database.js';
import { studiosArea } from './studios/routes.js';
import { typeaheadArea } from './typeahead/routes.js';
import { TypeaheadParts } from './typeahead/typeahead-parts.js';

export interface AppDeps {
  config: Config;
  store: Store;
  secretKey: Buffer;
  /** Fastify logger options (tests pass `false` or a capturing stream). */
  logger?: FastifyServerOptions['logger'];
  now?: () => Date;
  tuning?: Tuning;
}

const ID_OF_APP = new RegExp(ID_PATTERN);

/** Builds the whole service as a Fastify instance without listening: tests mount it as it is. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: deps.logger ?? { level: deps.config.logLevel, redact: ['req.headers.authorization'] },
    bodyLimit: 1024 * 1024,
    genReqId: (req) => requestId(req.headers['x-request-id']),
    // Answered by our own hook instead, in the common error body (common-headers.ts).
    return503OnClosing: false,
    // A path parameter may be as long as the URL Node accepts (16 KiB with the headers):
    // the route's own schema or lookup answers an id that is too long, in the common body,
    // instead of the router's bare 414 (which also refused valid 128-character app ids).
    routerOptions: { maxParamLength: 16 * 1024 },
    // Errors raised before routing (router, Node's parser) in the common body too.
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    http: { requireHostHeader: false },
    logController: new OneLinePerRequest(),
    schemaController: { compilersFactory: { buildValidator } },
  });
  const routes = FindMyWay();
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat() as HTTPMethod[]) {
      if (!routes.hasRoute(method, route.url)) routes.on(method, route.url, () => {});
    }
  });
  const allowedMethods = (path: string) =>
    (['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as HTTPMethod[]).filter((m) =>
      routes.find(m, path),
    );

  installErrorHandling(app, allowedMethods);
  addCommonHeaders(app);
  takeOverNodeAnswers(app);
  requireWellFormedText(app);
  const ctx: AppContext = {
    config: deps.config,
    store: deps.store,
    secretKey: deps.secretKey,
    metrics: createMetrics(app),
    log: app.log,
    now: deps.now ?? (() => new Date()),
    tuning: deps.tuning ?? {},
  };
  const parts: AppParts = {
    oauth: new TokenService(deps.store.db, deps.secretKey, ctx.now, externalIssuerSettings(deps.config)),
    rules: rulesParts(ctx),
    typeahead: new TypeaheadParts(ctx),
  };
  app.decorate('parts', parts);
  app.addHook('onReady', () => parts.typeahead.start());
  app.addHook('onClose', async () => {
    await parts.rules.close();
    await parts.typeahead.stop();
  });
  const areas: Area[] = [
    linksArea,
    clustersArea,
    typeaheadArea(parts.typeahead),
    studiosArea,
    oauthArea(parts.oauth),
    rulesArea(parts.oauth, parts.rules),
  ];
  app.addSchema(ErrorBodySchema);
  for (const schema of areas.flatMap((area) => area.schemas ?? [])) app.addSchema(schema);

  await app.register(swagger, {
    // Shared schemas keep their $id as their name in the document, instead of def-0, def-1, …
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    openapi: {
      info: {
        title: 'searchdeck',
        version: '0.1.0',
        description: 'Links, search clusters, typeahead and rules.',
      },
      components: {
        securitySchemes: {
          basic: { type: 'http', scheme: 'basic' },
          embed: { type: 'apiKey', in: 'header', name: 'Authorization' },
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { url: '/api/openapi.json' } });
  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  healthRoutes(app, deps.store);

  const verifier = new AdminVerifier(deps.store.db);
  const limiter = new FailureLimiter();
  await app.register(async (admin) => {
    requireAdmin(admin, verifier, limiter);
    metricsRoute(admin, ctx.metrics);
    for (const prefix of ['/api', '/api/apps/:app']) {
      await admin.register(
        async (api) => {
          api.addHook('preValidation', async (request) => {
            const app = appScope(request);
            if (app !== undefined && (app.length > 128 || !ID_OF_APP.test(app))) {
              throw new ValidationError(
                [{ field: 'app', message: 'app must be 1-128 letters, digits, "-", "_" or "."' }],
                'invalid-parameter',
              );
            }
          });
          for (const area of areas) await area.admin?.(api, ctx);
        },
        { prefix },
      );
    }
  });
  for (const area of areas) await area.public?.(app, ctx);
  return app;
}
