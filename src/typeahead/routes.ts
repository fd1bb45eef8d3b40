import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext, Area } from '../http/area.js';
import { NotFoundError } from '../http/errors.js';
import { adminErrors } from '../http/schemas.js';
import { TypeaheadRuntime } from './runtime.js';
import {
  EmbedTokenAnswer,
  IdParams,
  type InstanceCreate,
  InstanceCreateBody,
  type InstancePatch,
  InstancePatchBody,
  InstanceSchema,
  InstanceWithToken,
  RotationQuery,
  SearchLogAnswer,
  SearchLogBody,
  type SearchLogEntryType,
  SuggestionsQuery,
  type SuggestionsQueryType,
  TermCounts,
  type TermsPatch,
  TermsPatchBody,
  type TermsPut,
  TermsPutBody,
  TermsSchema,
} from './schemas.js';
import { ingestSearches, parseNdjson } from './search-log.js';
import {
  createInstance,
  getInstance,
  getTerms,
  listInstances,
  patchInstance,
  patchTerms,
  putTerms,
  removeInstance,
  rotateEmbedToken,
} from './service.js';
import { answerPreflight, authenticate, sendSuggestions } from './suggestions-http.js';

const tags = ['typeahead'];
const Suggestions = Type.Array(Type.String());
const runtimes = new WeakMap<AppContext, TypeaheadRuntime>();
const runtimesOfApps = new WeakMap<FastifyInstance, TypeaheadRuntime>();

function runtimeOf(ctx: AppContext): TypeaheadRuntime {
  let runtime = runtimes.get(ctx);
  if (!runtime) {
    runtime = new TypeaheadRuntime(ctx);
    runtimes.set(ctx, runtime);
  }
  return runtime;
}

/** The typeahead machinery of a built app (tests drive its job and registry directly). */
export function typeaheadRuntime(app: FastifyInstance): TypeaheadRuntime {
  const runtime = runtimesOfApps.get(app);
  if (!runtime) throw new Error('this app has no typeahead area');
  return runtime;
}

type Id = { Params: { id: string } };

/**
 * Typeahead: instance management and search logs on the Administrative API (instances
 * are global; the app scope of `/api/apps/{app}/…` does not narrow them), and the
 * suggestions of the Typeahead API, answered from memory.
 */
export const typeaheadArea: Area = {
  name: 'typeahead',
  schemas: [InstanceSchema, TermsSchema],
  async admin(api, ctx) {
    const db = ctx.store.db;
    const runtime = runtimeOf(ctx);
    const base = '/typeahead/instances';
    const withId = `${base}/:id`;

    api.post<{ Body: InstanceCreate }>(
      base,
      {
        schema: {
          tags,
          summary: 'Create an instance (answers its embed token, once)',
          body: InstanceCreateBody,
          response: { 201: InstanceWithToken, ...adminErrors },
        },
      },
      async (request, reply) => {
        const created = await createInstance(db, runtime.tokens, request.body, ctx.now());
        await runtime.changed();
        return reply.code(201).send(created);
      },
    );

    api.get(
      base,
      {
        schema: {
          tags,
          summary: 'List instances',
          response: { 200: Type.Array(Type.Ref('TypeaheadInstance')) },
        },
      },
      async () => listInstances(db),
    );

    api.get<Id>(
      withId,
      {
        schema: {
          tags,
          summary: 'One instance',
          params: IdParams,
          response: { 200: Type.Ref('TypeaheadInstance'), ...adminErrors },
        },
      },
      async (request) => getInstance(db, request.params.id),
    );

    api.patch<Id & { Body: InstancePatch }>(
      withId,
      {
        schema: {
          tags,
          summary: 'Change the name or settings of an instance',
          params: IdParams,
          body: InstancePatchBody,
          response: { 200: Type.Ref('TypeaheadInstance'), ...adminErrors },
        },
      },
      async (request) => {
        const instance = await patchInstance(db, request.params.id, request.body, ctx.now());
        await runtime.changed();
        return instance;
      },
    );

    api.delete<Id>(
      withId,
      { schema: { tags, summary: 'Delete an instance with its terms and logs', params: IdParams } },
      async (request, reply) => {
        await removeInstance(db, request.params.id);
        await runtime.changed();
        return reply.code(204).send();
      },
    );

    api.post<Id & { Querystring: { graceSeconds: number } }>(
      `${withId}/embed-token`,
      {
        schema: {
          tags,
          summary: 'Issue a new embed token; the old one stops working now or after graceSeconds',
          params: IdParams,
          querystring: RotationQuery,
          response: { 200: EmbedTokenAnswer, ...adminErrors },
        },
      },
      async (request) => {
        const { id } = request.params;
        const answer = await rotateEmbedToken(db, runtime.tokens, id, request.query.graceSeconds, ctx.now());
        await runtime.changed();
        return answer;
      },
    );

    api.get<Id>(
      `${withId}/terms`,
      {
        schema: {
          tags,
          summary: 'Curated and top-searched terms with their counts',
          params: IdParams,
          response: { 200: Type.Ref('TypeaheadTerms'), ...adminErrors },
        },
      },
      async (request) => getTerms(db, request.params.id),
    );

    api.put<Id & { Body: TermsPut }>(
      `${withId}/terms`,
      {
        schema: {
          tags,
          summary: 'Replace the included and excluded terms',
          params: IdParams,
          body: TermsPutBody,
          response: { 200: Type.Ref('TypeaheadTerms'), ...adminErrors },
        },
      },
      async (request) => {
        const terms = await putTerms(db, request.params.id, request.body, ctx.now());
        await runtime.changed();
        return terms;
      },
    );

    api.patch<Id & { Body: TermsPatch }>(
      `${withId}/terms`,
      {
        schema: {
          tags,
          summary: 'Add and remove included and excluded terms',
          params: IdParams,
          body: TermsPatchBody,
          response: { 200: Type.Ref('TypeaheadTerms'), ...adminErrors },
        },
      },
      async (request) => {
        const terms = await patchTerms(db, request.params.id, request.body, ctx.now());
        await runtime.changed();
        return terms;
      },
    );

    await api.register(async (logs) => {
      logs.addContentTypeParser('application/x-ndjson', { parseAs: 'string' }, (_request, body, done) => {
        try {
          done(null, parseNdjson(body as string));
        } catch (error) {
          done(error as Error);
        }
      });
      logs.post<Id & { Body: SearchLogEntryType[] }>(
        `${withId}/search-logs`,
        {
          // 10,000 entries with timestamps and long queries need more than the 1 MiB
          // every other endpoint takes; this one alone accepts up to 8 MiB.
          bodyLimit: 8 * 1024 * 1024,
          schema: {
            tags,
            summary: 'Report customer searches (JSON array or NDJSON), at most 10,000 per call',
            params: IdParams,
            body: SearchLogBody,
            response: { 202: SearchLogAnswer, ...adminErrors },
          },
        },
        async (request, reply) =>
          reply.code(202).send(await ingestSearches(db, request.params.id, request.body, ctx.now())),
      );
    });

    api.post<Id>(
      `${withId}/refresh`,
      {
        schema: {
          tags,
          summary: 'Recompute the top-searched terms now; answers the new counts',
          params: IdParams,
          response: { 200: TermCounts, ...adminErrors },
        },
      },
      async (request) => runtime.refresh(request.params.id),
    );

    api.get<Id & { Querystring: SuggestionsQueryType }>(
      `${withId}/suggestions`,
      {
        schema: {
          tags,
          summary: 'Preview the suggestions of an instance',
          params: IdParams,
          querystring: SuggestionsQuery,
          response: { 200: Suggestions, ...adminErrors },
        },
      },
      async (request, reply) => {
        const { id } = request.params;
        let instance = runtime.registry.get(id);
        if (!instance) {
          await runtime.changed();
          instance = runtime.registry.get(id);
        }
        if (!instance) throw new NotFoundError(`no typeahead instance ${id}`);
        const index = await runtime.registry.index(instance);
        return sendSuggestions(
          request,
          reply,
          instance,
          index,
          request.query.prefix ?? '',
          request.query.limit,
        );
      },
    );
  },

  async public(app, ctx) {
    const runtime = runtimeOf(ctx);
    runtimesOfApps.set(app, runtime);
    app.addHook('onReady', () => runtime.start());
    app.addHook('onClose', () => runtime.stop());
    const { registry, tokens } = runtime;
    const path = '/typeahead/suggestions';

    await app.register(async (scope) => {
      scope.decorateRequest('typeaheadInstance', null);
      scope.get<{ Querystring: SuggestionsQueryType }>(
        path,
        {
          schema: {
            tags,
            summary: 'Suggestions for a prefix, alphabetically (credential: Authorization: Embed <token>)',
            security: [{ embed: [] }],
            querystring: SuggestionsQuery,
            response: { 200: Suggestions, 401: Type.Ref('ErrorBody'), 403: Type.Ref('ErrorBody') },
          },
          onRequest: (request, reply, done) => {
            try {
              request.typeaheadInstance = authenticate(request, reply, registry, tokens);
              done();
            } catch (error) {
              done(error as Error);
            }
          },
        },
        (request, reply) => {
          const instance = request.typeaheadInstance!;
          const prefix = request.query.prefix ?? '';
          const index = registry.index(instance);
          if (!(index instanceof Promise)) {
            return sendSuggestions(request, reply, instance, index, prefix, request.query.limit);
          }
          return index.then((built) =>
            sendSuggestions(request, reply, instance, built, prefix, request.query.limit),
          );
        },
      );
      scope.options(path, { schema: { hide: true } }, (request, reply) =>
        answerPreflight(request, reply, registry),
      );
    });
  },
};

declare module 'fastify' {
  interface FastifyRequest {
    /** The typeahead instance of the request's embed token (Typeahead API routes only). */
    typeaheadInstance: import('./registry.js').ServedInstance | null;
  }
}
