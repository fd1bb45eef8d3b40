// The Rules API (Commerce Studio rules interface), at `/em-rules…` and
// `/studios/{studioId}/em-rules…`, and the rules area of the app.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { HistoryPage } from '../history/schemas.js';
import type { Area, TypedApp } from '../http/area.js';
import { NoContent } from '../http/schemas.js';
import { PageNumber, PageSchema, PageSize } from '../listing/page.js';
import { actorOf, requireBearer, type StudioCredentials } from '../oauth/bearer-auth.js';
import type { Store } from '../storage/database.js';
import { deliveryRoutes } from './delivery-routes.js';
import { HISTORY_ID, RULE_ID } from './examples.js';
import { normaliseListingSyntax } from './listing-params.js';
import type { RulesParts } from './rules-parts.js';
import { RULE_ACTIONS, RulesService } from './rules-service.js';
import {
  BulkRequest,
  FieldsQuery,
  ListingQuery,
  RuleCreateSchema,
  RuleSchema,
  RuleUpdateSchema,
} from './schemas.js';

const tags = ['rules'];
const errors = Object.fromEntries([400, 401, 403, 404, 409].map((status) => [status, Type.Ref('ErrorBody')]));
const RuleIdParam = Type.String({ minLength: 1, maxLength: 200, examples: [RULE_ID] });
const IdParams = Type.Object({ id: RuleIdParam });
const HistoryEventParams = Type.Object({
  id: RuleIdParam,
  historyId: Type.String({ minLength: 1, maxLength: 64, examples: [HISTORY_ID] }),
});
const HistoryPaging = Type.Object({ page: PageNumber, size: PageSize });
const RulePage = PageSchema(RuleSchema);
const BulkStatus = Type.Object({
  operationId: Type.String(),
  status: Type.String(),
  counts: Type.Record(Type.String(), Type.Integer()),
  errors: Type.Array(Type.Object({}, { additionalProperties: true })),
});

/** The listing's lists and enum values in the schema's form, before the schema checks them. */
async function listingSyntax(request: FastifyRequest): Promise<void> {
  request.query = normaliseListingSyntax(request.query as Record<string, string | string[] | undefined>);
}

/** The Rules API, behind bearer tokens of the app's token service; webhook delivery and bulk work come built. */
export function rulesArea(credentials: StudioCredentials, parts: RulesParts): Area {
  return {
    name: 'rules',
    admin: deliveryRoutes,
    async public(app, ctx) {
      app.addHook('onReady', async () => {
        parts.bulk
          .failAbandoned(ctx.store.db)
          .catch((error: unknown) => ctx.log.warn({ err: error }, 'ending abandoned bulk operations failed'));
        parts.webhooks.start();
      });
      const rules = new RulesService(ctx.now, parts.webhooks, parts.bulk, parts.metrics, parts.liveChanged);
      for (const prefix of ['', '/studios/:studioId']) {
        await app.register(
          async (api: TypedApp) => {
            requireBearer(api, ctx.store.db, credentials, 'commercestudio.rules');
            rulesApi(api, ctx.store, rules);
          },
          { prefix },
        );
      }
    },
  };
}

function rulesApi(api: TypedApp, store: Store, rules: RulesService): void {
  const { db, reader } = store;

  api.get(
    '/em-rules',
    {
      preValidation: listingSyntax,
      schema: {
        tags,
        operationId: 'listRules',
        summary: 'List rules',
        querystring: ListingQuery,
        response: { 200: RulePage, ...errors },
      },
    },
    (request) => rules.list(reader, actorOf(request).studioId, request.query),
  );
  api.post(
    '/em-rules',
    {
      schema: {
        tags,
        operationId: 'createRule',
        summary: 'Create a rule (DRAFT)',
        body: RuleCreateSchema,
        response: { 201: RuleSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { rule, etag } = await rules.create(db, actorOf(request), request.body);
      return reply.code(201).header('etag', etag).send(rule);
    },
  );
  api.get(
    '/em-rules/:id',
    {
      preValidation: listingSyntax,
      schema: {
        tags,
        operationId: 'getRule',
        summary: 'A rule (staging) with its live content',
        params: IdParams,
        querystring: FieldsQuery,
        response: { 200: RuleSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { rule, etag } = await rules.get(db, actorOf(request).studioId, request.params.id, request.query);
      reply.header('etag', etag);
      return rule;
    },
  );
  api.put(
    '/em-rules/:id',
    {
      schema: {
        tags,
        operationId: 'updateRule',
        summary: 'Replace the staging content (If-Match: lastModified or ETag)',
        params: IdParams,
        body: RuleUpdateSchema,
        response: { 200: RuleSchema, ...errors },
      },
    },
    async (request, reply) => {
      const ifMatch = request.headers['if-match'];
      const { rule, etag } = await rules.update(
        db,
        actorOf(request),
        request.params.id,
        request.body,
        ifMatch,
      );
      reply.header('etag', etag);
      return rule;
    },
  );
  api.delete(
    '/em-rules/:id',
    {
      schema: {
        tags,
        operationId: 'deleteRule',
        summary: 'Delete a draft; mark a published rule for deletion',
        params: IdParams,
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await rules.remove(db, actorOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
  for (const action of RULE_ACTIONS) {
    api.post(
      `/em-rules/:id/${action}`,
      {
        schema: {
          tags,
          operationId: `${action}Rule`,
          summary: `${action[0]!.toUpperCase()}${action.slice(1)} a rule`,
          params: IdParams,
          response: { 200: RuleSchema, ...errors },
        },
      },
      async (request, reply) => {
        const { rule, etag } = await rules.act(db, action, actorOf(request), request.params.id);
        reply.header('etag', etag);
        return rule;
      },
    );
  }

  api.get(
    '/em-rules/:id/history',
    {
      schema: {
        tags,
        operationId: 'listRuleHistory',
        summary: "A rule's history, newest first: its versions to restore",
        description:
          'The events of the rule (by id or externalId; a rule removed since, by its id), as ' +
          '`GET /api/history?object=rule:{id}` lists them: `after` is the rule as each change left ' +
          'it, `before` as it was. Each event id can be given to the restore.',
        params: IdParams,
        querystring: HistoryPaging,
        response: { 200: HistoryPage, ...errors },
      },
    },
    (request) => rules.history(db, actorOf(request).studioId, request.params.id, request.query),
  );
  api.post(
    '/em-rules/:id/history/:historyId/restore',
    {
      schema: {
        tags,
        operationId: 'restoreRuleVersion',
        summary: 'Restore a rule to the content one of its history events recorded (as staging)',
        description:
          "The staging content the event recorded (the rule as the event left it, or as it was when the event removed it) becomes the rule's staging again, never marked for deletion; live is untouched until the rule is published. A removed rule is created again with its id, as a draft. `If-Match` (lastModified or ETag) as for PUT. Recorded in the history as `restore-version`.",
        params: HistoryEventParams,
        response: { 200: RuleSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { rule, etag } = await rules.restoreVersion(
        db,
        actorOf(request),
        request.params.id,
        request.params.historyId,
        request.headers['if-match'],
      );
      reply.header('etag', etag);
      return rule;
    },
  );

  api.post(
    '/em-rules/bulk',
    {
      schema: {
        tags,
        operationId: 'startBulkOperation',
        summary: 'Start a bulk operation (processed in the background)',
        body: BulkRequest,
        response: { 202: Type.Object({ operationId: Type.String() }), ...errors },
      },
    },
    async (request, reply) => reply.code(202).send(await rules.startBulk(db, actorOf(request), request.body)),
  );
  api.get(
    '/em-rules/bulk/:operationId',
    {
      schema: {
        tags,
        operationId: 'getBulkOperation',
        summary: 'Status of a bulk operation',
        params: Type.Object({
          operationId: Type.String({ examples: ['cc75e667-dff4-4660-8418-d1a2bfb06657'] }),
        }),
        response: { 200: BulkStatus, ...errors },
      },
    },
    (request) => rules.bulkStatus(db, actorOf(request).studioId, request.params.operationId),
  );
}
