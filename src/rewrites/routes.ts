// The Query Rewrites API (the rewrites half of Commerce Studio's Rules & Rewrites), at
// `/query-rewrites…` and `/studios/{studioId}/query-rewrites…`, behind bearer tokens with
// scope `commercestudio.rewrites`.
import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import { HistoryPage } from '../history/schemas.js';
import type { Area, TypedApp } from '../http/area.js';
import { NoContent } from '../http/schemas.js';
import { PageNumber, PageSize } from '../listing/page.js';
import { actorOf, requireBearer, type StudioCredentials } from '../oauth/bearer-auth.js';
import type { Database } from '../storage/schema.js';
import { normaliseRewriteListingSyntax } from './listing.js';
import {
  RewriteBulkRequest,
  RewriteBulkResult,
  RewriteCreateBody,
  RewriteListingQuery,
  RewritePage,
  RewriteResponse,
  RewriteUpdateBody,
} from './schemas.js';
import { type LiveChangeListener, REWRITE_ACTIONS, RewritesService } from './service.js';

const tags = ['rewrites'];
const errors = Object.fromEntries([400, 401, 403, 404, 409].map((status) => [status, Type.Ref('ErrorBody')]));
const RewriteIdParam = Type.String({ minLength: 1, maxLength: 200 });
const IdParams = Type.Object({ id: RewriteIdParam });
const HistoryEventParams = Type.Object({
  id: RewriteIdParam,
  historyId: Type.String({ minLength: 1, maxLength: 64, examples: ['5e1d7c5a-3f8b-4d0e-9a6c-2b7f0e4d1c93'] }),
});
const HistoryPaging = Type.Object({ page: PageNumber, size: PageSize });

export interface RewritesAreaOptions {
  /** Called after a commit that changed a studio's live rewrites (evaluation rebuilds its index). */
  onLiveChange?: LiveChangeListener;
  /** Told how many rewrites a bulk request wrote, once committed. */
  wrote?: (rows: number) => void;
}

/** The listing's lists and enum values in the schema's form, before the schema checks them. */
async function listingSyntax(request: FastifyRequest): Promise<void> {
  request.query = normaliseRewriteListingSyntax(
    request.query as Record<string, string | string[] | undefined>,
  );
}

/** The Query Rewrites API, behind bearer tokens of the app's token service. */
export function rewritesArea(credentials: StudioCredentials, options: RewritesAreaOptions = {}): Area {
  return {
    name: 'rewrites',
    async public(app, ctx) {
      const listener = options.onLiveChange ?? (() => {});
      // The change is committed: a failing listener must not turn it into an error answer.
      const onLiveChange = (studioId: string) => {
        try {
          listener(studioId);
        } catch (error) {
          ctx.log.warn({ err: error, studioId }, 'a listener of live rewrite changes failed');
        }
      };
      const rewrites = new RewritesService(ctx.now, onLiveChange, options.wrote);
      for (const prefix of ['', '/studios/:studioId']) {
        await app.register(
          async (api: TypedApp) => {
            requireBearer(api, ctx.store.db, credentials, 'commercestudio.rewrites');
            rewritesApi(api, ctx.store.db, rewrites);
          },
          { prefix },
        );
      }
    },
  };
}

function rewritesApi(api: TypedApp, db: Kysely<Database>, rewrites: RewritesService): void {
  api.get(
    '/query-rewrites',
    {
      preValidation: listingSyntax,
      schema: {
        tags,
        operationId: 'listQueryRewrites',
        summary: 'List query rewrites',
        querystring: RewriteListingQuery,
        response: { 200: RewritePage, ...errors },
      },
    },
    (request) => rewrites.list(db, actorOf(request).studioId, request.query),
  );
  api.post(
    '/query-rewrites',
    {
      schema: {
        tags,
        operationId: 'createQueryRewrite',
        summary: 'Create a query rewrite (DRAFT)',
        body: RewriteCreateBody,
        response: { 201: RewriteResponse, ...errors },
      },
    },
    async (request, reply) => {
      const { rewrite, etag } = await rewrites.create(db, actorOf(request), request.body);
      return reply.code(201).header('etag', etag).send(rewrite);
    },
  );
  api.get(
    '/query-rewrites/:id',
    {
      schema: {
        tags,
        operationId: 'getQueryRewrite',
        summary: 'A query rewrite (staging) with its live content',
        params: IdParams,
        response: { 200: RewriteResponse, ...errors },
      },
    },
    async (request, reply) => {
      const { rewrite, etag } = await rewrites.get(db, actorOf(request).studioId, request.params.id);
      reply.header('etag', etag);
      return rewrite;
    },
  );
  api.put(
    '/query-rewrites/:id',
    {
      schema: {
        tags,
        operationId: 'updateQueryRewrite',
        summary: 'Replace the staging content (If-Match: lastModified or ETag)',
        params: IdParams,
        body: RewriteUpdateBody,
        response: { 200: RewriteResponse, ...errors },
      },
    },
    async (request, reply) => {
      const ifMatch = request.headers['if-match'];
      const { rewrite, etag } = await rewrites.update(
        db,
        actorOf(request),
        request.params.id,
        request.body,
        ifMatch,
      );
      reply.header('etag', etag);
      return rewrite;
    },
  );
  api.delete(
    '/query-rewrites/:id',
    {
      schema: {
        tags,
        operationId: 'deleteQueryRewrite',
        summary: 'Delete a draft; mark a published rewrite for deletion',
        params: IdParams,
        response: { 204: NoContent, ...errors },
      },
    },
    async (request, reply) => {
      await rewrites.remove(db, actorOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
  for (const action of REWRITE_ACTIONS) {
    api.post(
      `/query-rewrites/:id/${action}`,
      {
        schema: {
          tags,
          operationId: `${action}QueryRewrite`,
          summary: `${action[0]!.toUpperCase()}${action.slice(1)} a query rewrite`,
          params: IdParams,
          response: { 200: RewriteResponse, ...errors },
        },
      },
      async (request, reply) => {
        const { rewrite, etag } = await rewrites.act(db, action, actorOf(request), request.params.id);
        reply.header('etag', etag);
        return rewrite;
      },
    );
  }
  api.get(
    '/query-rewrites/:id/history',
    {
      schema: {
        tags,
        operationId: 'listQueryRewriteHistory',
        summary: "A query rewrite's history, newest first: its versions to restore",
        description:
          'The events of the rewrite (also of one removed since), as ' +
          '`GET /api/history?object=rewrite:{id}` lists them: `after` is the rewrite as each change ' +
          'left it, `before` as it was. Each event id can be given to the restore.',
        params: IdParams,
        querystring: HistoryPaging,
        response: { 200: HistoryPage, ...errors },
      },
    },
    (request) => rewrites.history(db, actorOf(request).studioId, request.params.id, request.query),
  );
  api.post(
    '/query-rewrites/:id/history/:historyId/restore',
    {
      schema: {
        tags,
        operationId: 'restoreQueryRewriteVersion',
        summary: 'Restore a query rewrite to the content one of its history events recorded (as staging)',
        description:
          "The staging content the event recorded (the rewrite as the event left it, or as it was when the event removed it) becomes the rewrite's staging again, never marked for deletion; live is untouched until the rewrite is published. A removed rewrite is created again with its id, as a draft. `If-Match` (lastModified or ETag) as for PUT. Recorded in the history as `restore-version`.",
        params: HistoryEventParams,
        response: { 200: RewriteResponse, ...errors },
      },
    },
    async (request, reply) => {
      const { rewrite, etag } = await rewrites.restoreVersion(
        db,
        actorOf(request),
        request.params.id,
        request.params.historyId,
        request.headers['if-match'],
      );
      reply.header('etag', etag);
      return rewrite;
    },
  );
  api.post(
    '/query-rewrites/bulk',
    {
      schema: {
        tags,
        operationId: 'bulkQueryRewrites',
        summary: 'Create, update, delete and publish many rewrites in one transaction',
        body: RewriteBulkRequest,
        response: { 200: RewriteBulkResult, ...errors },
      },
    },
    (request) => rewrites.bulk(db, actorOf(request), request.body),
  );
}
