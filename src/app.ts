import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { AnalyticsRollup } from './analytics/rollup-job.js';
import { analyticsArea } from './analytics/routes.js';
import type { AppParts } from './app-parts.js';
import { clustersArea } from './clusters/routes.js';
import type { Config } from './config.js';
import { EvaluationParts } from './evaluation/evaluation-parts.js';
import type { RewriteSource } from './evaluation/rewrite-source.js';
import { evaluationArea } from './evaluation/routes.js';
import { experimentsUsingStudio } from './experiments/service.js';
import { HistoryRetention } from './history/retention.js';
import { historyArea } from './history/routes.js';
import { type AppContext, type Area, appScope, type Tuning, type TypedApp } from './http/area.js';
import { addCommonHeaders, requestId } from './http/common-headers.js';
import { capConnectionsPerAddress } from './http/connection-cap.js';
import { consoleDirectory, consoleRoutes } from './http/console.js';
import { EarlyAnswers } from './http/early-answers.js';
import { answerClientError, answerFrameworkError, takeOverNodeAnswers } from './http/early-errors.js';
import { installErrorHandling } from './http/error-handler.js';
import { ValidationError } from './http/errors.js';
import { landingPage } from './http/landing-page.js';
import { madeOnce } from './http/made-once.js';
import { createMetrics } from './http/metrics.js';
import { openApiOptions } from './http/openapi.js';
import { healthRoutes, metricsRoute } from './http/operations-routes.js';
import { parseQueryString } from './http/query-string.js';
import { FailureLimiter } from './http/rate-limiter.js';
import { OneLinePerRequest } from './http/request-logging.js';
import { ErrorBodySchema, isId } from './http/schemas.js';
import { serializerFactory } from './http/serialization.js';
import { Shutdown } from './http/shutdown.js';
import { parseTrustedProxies } from './http/trust-proxy.js';
import { validatorFactory } from './http/validation.js';
import { requireWellFormedText } from './http/well-formed-text.js';
import { JobMetrics } from './jobs/job-metrics.js';
import { linksArea } from './links/routes.js';
import type { StudioCredentials } from './oauth/bearer-auth.js';
import { externalIssuerSettings } from './oauth/external-issuer.js';
import { oauthArea } from './oauth/token-routes.js';
import { TokenService } from './oauth/token-service.js';
import { objectsArea } from './objects/routes.js';
import { profilesUsingStudio } from './query/profiles.js';
import { QueryParts } from './query/query-parts.js';
import { queryArea } from './query/routes.js';
import { rewritesArea } from './rewrites/routes.js';
import { liveRewritesOf, stagingRewritesOf, studioRewrites } from './rewrites/service.js';
import { rulesArea } from './rules/routes.js';
import { studioRules } from './rules/rule-edits.js';
import { rulesParts } from './rules/rules-parts.js';
import { signalsArea } from './signals/routes.js';
import { SignalsParts } from './signals/signals-parts.js';
import type { Store } from './storage/database.js';
import { PlannerStatistics } from './storage/planner-statistics.js';
import { watchPool } from './storage/pool-metrics.js';
import { studiosArea } from './studios/routes.js';
import { typeaheadArea } from './typeahead/routes.js';
import { TypeaheadParts } from './typeahead/typeahead-parts.js';
import { requireUser, userCheck } from './users/admin-auth.js';
import { rolesOf } from './users/roles.js';
import { sessionRoutes, usersArea } from './users/routes.js';
import { UsersParts } from './users/users-parts.js';

/** The rewrites evaluation applies: those of the Query Rewrites API. */
const STORED_REWRITES: RewriteSource = { live: liveRewritesOf, staging: stagingRewritesOf };

export interface AppDeps {
  config: Config;
  store: Store;
  secretKey: Buffer;
  /** Fastify logger options (tests pass `false` or a capturing stream). */
  logger?: FastifyServerOptions['logger'];
  now?: () => Date;
  tuning?: Tuning;
  /** Where evaluation takes rewrites from (tests give their own); none by default. */
  rewrites?: RewriteSource;
}

/** Builds the whole service as a Fastify instance without listening: tests mount it as it is. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const compileTime = deps.tuning?.compileSchemas ?? 'at-start';
  const app = Fastify({
    logger: deps.logger ?? { level: deps.config.logLevel, redact: ['req.headers.authorization'] },
    bodyLimit: 1024 * 1024,
    // request.ip (failure limits, logs), .protocol and .hostname follow X-Forwarded-* only
    // when the peer is a trusted proxy (SEARCHDECK_TRUST_PROXY; off by default).
    trustProxy: parseTrustedProxies(deps.config.trustProxy),
    genReqId: (req) => requestId(req.headers['x-request-id']),
    // Answered by our own hook instead, in the common error body (common-headers.ts).
    return503OnClosing: false,
    // A request's line, headers and body must all arrive within the request timeout (Node
    // answers 408 through clientErrorHandler and closes the connection); Fastify's default of
    // 0 let a client trickle a body forever. Node checks every 30 s by default, which would
    // let a request run up to twice the timeout; checking the connections still receiving a
    // request once a second (or more often for a shorter timeout) is cheap.
    requestTimeout: deps.config.requestTimeoutMs,
    // A path parameter may be as long as the URL Node accepts (16 KiB with the headers):
    // the route's own schema or lookup answers an id that is too long, in the common body,
    // instead of the router's bare 414 (which also refused valid 128-character app ids).
    routerOptions: { maxParamLength: 16 * 1024, querystringParser: parseQueryString },
    // Errors raised before routing (router, Node's parser) in the common body too.
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    http: {
      requireHostHeader: false,
      requestTimeout: deps.config.requestTimeoutMs,
      headersTimeout: Math.min(60_000, deps.config.requestTimeoutMs),
      connectionsCheckingInterval: Math.min(1000, Math.ceil(deps.config.requestTimeoutMs / 4)),
    },
    logController: new OneLinePerRequest(),
    // Schemas are compiled once per process, whatever the number of apps or prefixes.
    schemaController: {
      compilersFactory: {
        buildValidator: validatorFactory(compileTime),
        buildSerializer: serializerFactory(compileTime),
      },
    },
  });
  // A client that sends its request and then closes its side of the connection (`nc -N`,
  // some HTTP/1.0 tools) still waits for the answer; Node would abort every request still
  // running on such a connection and answer nothing. The connection closes after the answer.
  // Node's http.Server reads this flag though its types omit it; a test holds the behaviour.
  (app.server as typeof app.server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  // The methods a path takes, for the Allow header of a 405: a router of its own, built from
  // the routes when first asked (most apps a test builds never answer a 405).
  const declared: Array<{ method: HTTPMethod; url: string }> = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat() as HTTPMethod[]) declared.push({ method, url: route.url });
  });
  const routes = madeOnce(() => {
    const router = FindMyWay();
    for (const { method, url } of declared)
      if (!router.hasRoute(method, url)) router.on(method, url, () => {});
    return router;
  });
  const allowedMethods = (path: string) =>
    (['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as HTTPMethod[]).filter((m) =>
      routes().find(m, path),
    );

  installErrorHandling(app, allowedMethods);
  // Fastify parses text/plain bodies into a string by default; no route takes one, and a
  // JSON route must answer such a body 415 like any other type it does not take, not 400.
  app.removeContentTypeParser('text/plain');
  addCommonHeaders(app);
  takeOverNodeAnswers(app);
  requireWellFormedText(app);
  const metrics = createMetrics(app);
  const trustedProxies = parseTrustedProxies(deps.config.trustProxy);
  capConnectionsPerAddress(
    app.server,
    deps.config.maxConnectionsPerAddress,
    trustedProxies,
    app.log,
    metrics,
  );
  const shutdown = new Shutdown(app, deps.config.shutdownGraceMs);
  // Before any route is declared: it collects the routes that answer early.
  const early = new EarlyAnswers(app, metrics, {
    enabled: deps.tuning?.earlyAnswers !== false,
    trustsProxy: trustedProxies !== false,
    compileTime,
  });
  const now = deps.now ?? (() => new Date());
  const ctx: AppContext = {
    config: deps.config,
    store: deps.store,
    secretKey: deps.secretKey,
    metrics,
    jobs: new JobMetrics(metrics, now),
    log: app.log,
    now,
    tuning: deps.tuning ?? {},
    stopping: shutdown.signal,
  };
  const unwatchPool = watchPool(deps.store.pool, ctx.metrics, app.log);
  const adminLogin = new FailureLimiter(deps.store.db, 'admin-login', ctx.now);
  // Evaluation applies the rewrites of the Query Rewrites API (tests may give their own), and
  // that API's publishes tell it to rebuild (`onLiveChange` below).
  const evaluation = new EvaluationParts(ctx, deps.rewrites ?? STORED_REWRITES);
  const statistics = new PlannerStatistics(deps.store.db, app.log);
  const signals = new SignalsParts(ctx);
  const parts: AppParts = {
    limits: {
      adminLogin,
      tokenRequest: new FailureLimiter(deps.store.db, 'token-request', ctx.now),
    },
    users: new UsersParts(
      deps.store,
      adminLogin,
      ctx.now,
      { idleMinutes: deps.config.sessionIdleMinutes, maxHours: deps.config.sessionMaxHours },
      app.log,
    ),
    oauth: new TokenService(deps.secretKey, ctx.now, externalIssuerSettings(deps.config)),
    rules: rulesParts(
      ctx,
      (studioId, ruleIds) => evaluation.liveChanged(studioId, { rules: ruleIds, rewrites: false }),
      (rows) => statistics.wrote('rules', rows),
    ),
    typeahead: new TypeaheadParts(ctx),
    evaluation,
    history: new HistoryRetention({ ...ctx, retentionDays: deps.config.historyRetentionDays }),
    query: new QueryParts(ctx, signals),
    signals,
    analytics: new AnalyticsRollup({
      ...ctx,
      retentionDays: deps.config.analyticsRetentionDays,
      rawRetentionDays: deps.config.signalsRetentionDays,
    }),
    statistics,
    early,
    shutdown,
  };
  app.decorate('parts', parts);
  app.addHook('onReady', async () => {
    parts.history.start();
    await parts.typeahead.start();
  });
  app.addHook('onReady', () => parts.evaluation.start());
  app.addHook('onReady', async () => parts.query.start());
  app.addHook('onReady', async () => {
    if (ctx.tuning.analyticsRollup !== false) parts.analytics.start();
  });
  app.addHook('onReady', async () => parts.signals.start());
  app.addHook('onClose', async () => {
    await parts.rules.close();
    await parts.typeahead.stop();
    await parts.history.stop();
    await parts.analytics.stop();
    unwatchPool();
    await parts.evaluation.stop();
    await parts.query.close();
    // After the query endpoint: its last response signals are written.
    await parts.signals.stop();
    await parts.statistics.settled();
  });
  // The rewrites' own notice of a changed live set, for their API and for imports alike.
  const rewritesLiveChanged = (studioId: string) =>
    void parts.evaluation.liveChanged(studioId, { rules: [], rewrites: true });
  // A studio's APIs take a bearer token, or at its own paths a console session.
  const studioCredentials: StudioCredentials = { tokens: parts.oauth, sessions: parts.users.auth };
  const areas: Area[] = [
    usersArea(parts.users),
    linksArea,
    clustersArea,
    typeaheadArea(parts.typeahead),
    studiosArea(
      { contents: [studioRules, studioRewrites], users: [profilesUsingStudio, experimentsUsingStudio] },
      parts.evaluation,
    ),
    oauthArea(parts.oauth, parts.limits.tokenRequest),
    rulesArea(studioCredentials, parts.rules),
    rewritesArea(studioCredentials, {
      // liveChanged never throws; the rewrite's answer does not wait for the rebuild.
      onLiveChange: rewritesLiveChanged,
      wrote: (rows) => statistics.wrote('rewrites', rows),
    }),
    objectsArea({
      typeahead: parts.typeahead,
      wakeDeliveries: () => parts.rules.webhooks.wake(),
      liveRulesChanged: (studioId) => parts.evaluation.liveChanged(studioId),
      clientsChange: (studioId) => parts.evaluation.clientsChange(studioId),
      liveRewritesChanged: rewritesLiveChanged,
      wrote: (group, rows) => statistics.wrote(group, rows),
    }),
    evaluationArea(studioCredentials, parts.evaluation),
    historyArea,
    queryArea(parts.query, parts.evaluation, userCheck(parts.users.passwords, parts.users.auth)),
    signalsArea(parts.signals, parts.query, userCheck(parts.users.passwords, parts.users.auth)),
    analyticsArea(parts.analytics),
  ];
  app.addSchema(ErrorBodySchema);
  for (const schema of areas.flatMap((area) => area.schemas ?? [])) app.addSchema(schema);

  await app.register(
    swagger,
    openApiOptions('0.1.0', (route) => rolesOf(String(route.method), route.config?.access)),
  );
  // Offers the three credentials in "Authorize", and keeps them across reloads of the page.
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { url: '/api/openapi.json', persistAuthorization: true },
  });
  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  // Routes are declared on the app typed once by the TypeBox type provider (the same
  // instance, typed); the plugins below and the areas' own keep that type.
  const typed: TypedApp = app.withTypeProvider<TypeBoxTypeProvider>();
  healthRoutes(typed, deps.store);
  landingPage(typed);
  await consoleRoutes(app, consoleDirectory());

  sessionRoutes(typed, ctx, parts.users);
  await typed.register(async (admin: TypedApp) => {
    requireUser(admin, parts.users.auth, parts.users.passwords);
    metricsRoute(admin, ctx.metrics);
    for (const prefix of ['/api', '/api/apps/:app']) {
      await admin.register(
        async (api: TypedApp) => {
          api.addHook('preValidation', async (request) => {
            const app = appScope(request);
            if (app !== undefined && !isId(app)) {
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
  for (const area of areas) await area.public?.(typed, ctx);
  return app;
}
