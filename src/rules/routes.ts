// The Rules API (Commerce Studio rules interface), at `/em-rules…` and
// `/studios/{studioId}/em-rules…`, and the rules area of the app.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { AppContext, Area } from '../http/area.js';
import { actorOf, requireBearer } from '../oauth/bearer-auth.js';
import type { TokenService } from '../oauth/token-service.js';
import type { BulkRequest } from './bulk.js';
import { listRules } from './listing.js';
import { parseFields } from './listing-params.js';
import { extrasOf, presentRule } from './presentation.js';
import type { StoredRule } from './rule-rows.js';
import { type RulesRuntime, rulesRuntime } from './runtime.js';
import { RuleCreateBody, RuleResponse, RuleUpdateBody } from './schemas.js';
import {
  createRule,
  deleteRuleOrMark,
  etagOf,
  getRule,
  publishRule,
  type RuleChange,
  restoreRule,
  unpublishRule,
  updateRuleStaging,
} from './service.js';

const tags = ['rules'];
const security = [{ bearer: [] }];
const errors = Object.fromEntries([400, 401, 403, 404, 409].map((status) => [status, Type.Ref('ErrorBody')]));
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });
const List = Type.Array(Type.String());
const ListingQuery = Type.Object({
  searchQuery: Type.Optional(Type.String()),
  tags: Type.Optional(List),
  groups: Type.Optional(List),
  types: Type.Optional(List),
  publishState: Type.Optional(Type.String()),
  published: Type.Optional(Type.String()),
  targetedDocumentId: Type.Optional(Type.String()),
  targetedDocumentFieldName: Type.Optional(Type.String()),
  ...Object.fromEntries(
    ['activeDate', 'expirationDate', 'lastModified', 'creationDate'].flatMap((prefix) => [
      [`${prefix}Start`, Type.Optional(Type.String())],
      [`${prefix}End`, Type.Optional(Type.String())],
    ]),
  ),
  contentType: Type.Optional(Type.String()),
  page: Type.Optional(Type.String({ description: 'integer ≥ 0, default 0' })),
  size: Type.Optional(Type.String({ description: 'integer 1–1000, default 20' })),
  sort: Type.Optional(List),
  fields: Type.Optional(List),
});
const FieldsQuery = Type.Object({ fields: Type.Optional(List) });
const RulePage = Type.Object({
  content: Type.Array(RuleResponse),
  page: Type.Object({
    size: Type.Integer(),
    number: Type.Integer(),
    totalElements: Type.Integer(),
    totalPages: Type.Integer(),
  }),
});
const BulkStatus = Type.Object({
  operationId: Type.String(),
  status: Type.String(),
  counts: Type.Record(Type.String(), Type.Integer()),
  errors: Type.Array(Type.Object({}, { additionalProperties: true })),
});

type Query = Record<string, string | string[] | undefined>;

/** The Rules API, behind bearer tokens of the app's token service. */
export const rulesArea = (tokens: TokenService): Area => ({
  name: 'rules',
  async public(app, ctx) {
    const runtime = rulesRuntime(ctx);
    app.addHook('onReady', async () => {
      runtime.bulk
        .failAbandoned()
        .catch((error: unknown) => ctx.log.warn({ err: error }, 'ending abandoned bulk operations failed'));
      runtime.sync
        .resume()
        .catch((error: unknown) => ctx.log.warn({ err: error }, 'resuming rule sync failed'));
    });
    app.addHook('onClose', () => runtime.close());
    for (const prefix of ['', '/studios/:studioId']) {
      await app.register(
        async (api) => {
          requireBearer(api, ctx.store.db, tokens);
          rulesApi(api, ctx, runtime);
        },
        { prefix },
      );
    }
  },
});

function rulesApi(api: FastifyInstance, ctx: AppContext, runtime: RulesRuntime): void {
  const db = ctx.store.db;
  const answer = async (reply: FastifyReply, stored: StoredRule, query: Query = {}) => {
    const extras = await extrasOf(db, stored.rule.studioId, [stored], parseFields(query));
    reply.header('etag', etagOf(stored.rule));
    return presentRule(stored, extras.get(stored.rule.id));
  };
  const announce = (change: RuleChange) => {
    if (change.removed) runtime.sync.removed(change.stored);
    else runtime.sync.changed(change.stored.rule.studioId, change.stored.rule.id);
    return change;
  };

  api.get<{ Querystring: Query }>(
    '/em-rules',
    {
      schema: {
        tags,
        security,
        summary: 'List rules',
        querystring: ListingQuery,
        response: { 200: RulePage, ...errors },
      },
    },
    (request) => listRules(db, actorOf(request).studioId, request.query),
  );
  api.post(
    '/em-rules',
    {
      schema: {
        tags,
        security,
        summary: 'Create a rule (DRAFT)',
        body: RuleCreateBody,
        response: { 201: RuleResponse, ...errors },
      },
    },
    async (request, reply) => {
      const stored = await createRule(db, actorOf(request), request.body, ctx.now());
      announce({ stored, removed: false });
      return reply.code(201).send(await answer(reply, stored));
    },
  );
  api.get<{ Params: { id: string }; Querystring: Query }>(
    '/em-rules/:id',
    {
      schema: {
        tags,
        security,
        summary: 'A rule (staging) with its live content',
        params: IdParams,
        querystring: FieldsQuery,
        response: { 200: RuleResponse, ...errors },
      },
    },
    async (request, reply) =>
      answer(reply, await getRule(db, actorOf(request).studioId, request.params.id), request.query),
  );
  api.put<{ Params: { id: string } }>(
    '/em-rules/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Replace the staging content (If-Match: lastModified or ETag)',
        params: IdParams,
        body: RuleUpdateBody,
        response: { 200: RuleResponse, ...errors },
      },
    },
    async (request, reply) => {
      const ifMatch = request.headers['if-match'];
      const change = await updateRuleStaging(
        db,
        actorOf(request),
        request.params.id,
        request.body,
        ifMatch,
        ctx.now(),
      );
      return answer(reply, announce(change).stored);
    },
  );
  api.delete<{ Params: { id: string } }>(
    '/em-rules/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Delete a draft; mark a published rule for deletion',
        params: IdParams,
      },
    },
    async (request, reply) => {
      announce(await deleteRuleOrMark(db, actorOf(request), request.params.id, ctx.now()));
      return reply.code(204).send();
    },
  );
  const actions = { publish: publishRule, unpublish: unpublishRule, restore: restoreRule };
  for (const [action, run] of Object.entries(actions)) {
    api.post<{ Params: { id: string } }>(
      `/em-rules/:id/${action}`,
      {
        schema: {
          tags,
          security,
          summary: `${action[0]!.toUpperCase()}${action.slice(1)} a rule`,
          params: IdParams,
          response: { 200: RuleResponse, ...errors },
        },
      },
      async (request, reply) =>
        answer(reply, announce(await run(db, actorOf(request), request.params.id, ctx.now())).stored),
    );
  }

  api.post<{ Body: BulkRequest }>(
    '/em-rules/bulk',
    {
      schema: {
        tags,
        security,
        summary: 'Start a bulk operation (processed in the background)',
        body: Type.Object({
          create: Type.Optional(Type.Array(Type.Unknown())),
          update: Type.Optional(Type.Array(Type.Unknown())),
          delete: Type.Optional(Type.Array(Type.String())),
          publish: Type.Optional(Type.Array(Type.String())),
        }),
        response: { 202: Type.Object({ operationId: Type.String() }), ...errors },
      },
    },
    async (request, reply) => reply.code(202).send(await runtime.bulk.start(actorOf(request), request.body)),
  );
  api.get<{ Params: { operationId: string } }>(
    '/em-rules/bulk/:operationId',
    {
      schema: {
        tags,
        security,
        summary: 'Status of a bulk operation',
        params: Type.Object({ operationId: Type.String() }),
        response: { 200: BulkStatus, ...errors },
      },
    },
    (request) => runtime.bulk.status(actorOf(request).studioId, request.params.operationId),
  );
}
