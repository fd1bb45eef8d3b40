import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { adminActor } from '../history/actor.js';
import type { Area } from '../http/area.js';
import { adminErrors, NoContent } from '../http/schemas.js';
import {
  EmbedTokenAnswer,
  IdParams,
  InstanceCreateBody,
  InstancePatchBody,
  InstanceSchema,
  InstanceWithToken,
  RotationQuery,
  SearchCountsQuery,
  SearchCountsSchema,
  SearchLogAnswer,
  SearchLogBody,
  SuggestionsQuery,
  TermCounts,
  TermsPatchBody,
  TermsPutBody,
  TermsSchema,
} from './schemas.js';
import { searchesPerHour } from './search-counts.js';
import { ingestSearches, parseNdjson } from './search-log.js';
import {
  createInstance,
  getInstance,
  listInstances,
  patchInstance,
  previewIndex,
  removeInstance,
  rotateEmbedToken,
} from './service.js';
import { suggestionsLane } from './suggestions-fast-path.js';
import { answerPreflight, authenticate, sendSuggestions } from './suggestions-http.js';
import { getTerms, patchTerms, putTerms, refreshTopSearchedNow } from './terms-service.js';
import type { TypeaheadParts } from './typeahead-parts.js';

const tags = ['typeahead'];
const Suggestions = Type.Array(Type.String());

/**
 * Typeahead: instance management and search logs on the Administrative API (instances
 * are global; the app scope of `/api/apps/{app}/…` does not narrow them), and the
 * suggestions of the Typeahead API, answered from memory by this node's `typeahead` parts.
 */
export const typeaheadArea = (typeahead: TypeaheadParts): Area => ({
  name: 'typeahead',
  schemas: [InstanceSchema, TermsSchema, SearchCountsSchema],
  async admin(scope, ctx) {
    const api = scope.withTypeProvider<TypeBoxTypeProvider>();
    const db = ctx.store.db;
    const base = '/typeahead/instances';
    const withId = `${base}/:id`;

    api.post(
      base,
      {
        schema: {
          tags,
          operationId: 'createTypeaheadInstance',
          summary: 'Create an instance (answers its embed token, once)',
          body: InstanceCreateBody,
          response: { 201: InstanceWithToken, ...adminErrors },
        },
      },
      async (request, reply) =>
        reply
          .code(201)
          .send(await createInstance(db, typeahead, request.body, ctx.now(), adminActor(request))),
    );

    api.get(
      base,
      {
        schema: {
          tags,
          operationId: 'listTypeaheadInstances',
          summary: 'List instances',
          response: { 200: Type.Array(Type.Ref('TypeaheadInstance')) },
        },
      },
      async () => listInstances(db),
    );

    api.get(
      withId,
      {
        schema: {
          tags,
          operationId: 'getTypeaheadInstance',
          summary: 'One instance',
          params: IdParams,
          response: { 200: Type.Ref('TypeaheadInstance'), ...adminErrors },
        },
      },
      async (request) => getInstance(db, request.params.id),
    );

    api.patch(
      withId,
      {
        schema: {
          tags,
          operationId: 'updateTypeaheadInstance',
          summary: 'Change the name or settings of an instance',
          params: IdParams,
          body: InstancePatchBody,
          response: { 200: Type.Ref('TypeaheadInstance'), ...adminErrors },
        },
      },
      async (request) =>
        patchInstance(db, typeahead, request.params.id, request.body, ctx.now(), adminActor(request)),
    );

    api.delete(
      withId,
      {
        schema: {
          tags,
          operationId: 'deleteTypeaheadInstance',
          summary: 'Delete an instance with its terms and logs',
          params: IdParams,
          response: { 204: NoContent, ...adminErrors },
        },
      },
      async (request, reply) => {
        await removeInstance(db, typeahead, request.params.id, adminActor(request));
        return reply.code(204).send(null);
      },
    );

    api.post(
      `${withId}/embed-token`,
      {
        schema: {
          tags,
          operationId: 'rotateEmbedToken',
          summary: 'Issue a new embed token; the old one stops working now or after graceSeconds',
          params: IdParams,
          querystring: RotationQuery,
          response: { 200: EmbedTokenAnswer, ...adminErrors },
        },
      },
      async (request) =>
        rotateEmbedToken(
          db,
          typeahead,
          request.params.id,
          request.query.graceSeconds,
          ctx.now(),
          adminActor(request),
        ),
    );

    api.get(
      `${withId}/terms`,
      {
        schema: {
          tags,
          operationId: 'getTypeaheadTerms',
          summary: 'Curated and top-searched terms with their counts',
          params: IdParams,
          response: { 200: Type.Ref('TypeaheadTerms'), ...adminErrors },
        },
      },
      async (request) => getTerms(db, request.params.id),
    );

    api.put(
      `${withId}/terms`,
      {
        // A merchandiser may edit the terms of the instances listed on their user.
        config: { access: { typeaheadInstance: 'id' } },
        schema: {
          tags,
          operationId: 'putTypeaheadTerms',
          summary: 'Replace the included and excluded terms',
          params: IdParams,
          body: TermsPutBody,
          response: { 200: Type.Ref('TypeaheadTerms'), ...adminErrors },
        },
      },
      async (request) =>
        putTerms(db, typeahead, request.params.id, request.body, ctx.now(), adminActor(request)),
    );

    api.patch(
      `${withId}/terms`,
      {
        // A merchandiser may edit the terms of the instances listed on their user.
        config: { access: { typeaheadInstance: 'id' } },
        schema: {
          tags,
          operationId: 'patchTypeaheadTerms',
          summary: 'Add and remove included and excluded terms',
          params: IdParams,
          body: TermsPatchBody,
          response: { 200: Type.Ref('TypeaheadTerms'), ...adminErrors },
        },
      },
      async (request) =>
        patchTerms(db, typeahead, request.params.id, request.body, ctx.now(), adminActor(request)),
    );

    await api.register(async (plain) => {
      const logs = plain.withTypeProvider<TypeBoxTypeProvider>();
      logs.addContentTypeParser('application/x-ndjson', { parseAs: 'string' }, (_request, body, done) => {
        try {
          done(null, parseNdjson(body as string));
        } catch (error) {
          done(error as Error);
        }
      });
      logs.post(
        `${withId}/search-logs`,
        {
          // 10,000 entries with timestamps and long queries need more than the 1 MiB
          // every other endpoint takes; this one alone accepts up to 8 MiB.
          bodyLimit: 8 * 1024 * 1024,
          schema: {
            tags,
            operationId: 'reportSearches',
            summary: 'Report customer searches (JSON array or NDJSON), at most 10,000 per call',
            params: IdParams,
            body: SearchLogBody,
            response: { 202: SearchLogAnswer, ...adminErrors },
          },
        },
        async (request, reply) =>
          reply
            .code(202)
            .send(await ingestSearches(db, request.params.id, request.body, ctx.now(), typeahead.searchLogs)),
      );
    });

    api.post(
      `${withId}/refresh`,
      {
        schema: {
          tags,
          operationId: 'refreshTopSearched',
          summary: 'Recompute the top-searched terms now; answers the new counts',
          params: IdParams,
          response: { 200: TermCounts, ...adminErrors },
        },
      },
      async (request) => refreshTopSearchedNow(db, typeahead, request.params.id),
    );

    api.get(
      `${withId}/search-counts`,
      {
        schema: {
          tags,
          operationId: 'getTypeaheadSearchCounts',
          summary: 'Logged searches per hour (UTC) over a trailing range, for a chart',
          params: IdParams,
          querystring: SearchCountsQuery,
          response: { 200: Type.Ref('TypeaheadSearchCounts'), ...adminErrors },
        },
      },
      async (request) => searchesPerHour(db, request.params.id, request.query.hours, ctx.now()),
    );

    api.get(
      `${withId}/suggestions`,
      {
        schema: {
          tags,
          operationId: 'previewSuggestions',
          summary: 'Preview the suggestions of an instance',
          params: IdParams,
          querystring: SuggestionsQuery,
          response: { 200: Suggestions, ...adminErrors },
        },
      },
      async (request, reply) => {
        const { instance, index } = await previewIndex(typeahead, request.params.id);
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
    const { registry, tokens } = typeahead;
    const path = '/typeahead/suggestions';
    ctx.lanes.add(suggestionsLane({ registry, tokens }));

    await app.register(async (plain) => {
      const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
      scope.decorateRequest('typeaheadInstance', null);
      scope.get(
        path,
        {
          schema: {
            tags,
            operationId: 'getSuggestions',
            summary: 'Suggestions for a prefix, alphabetically (credential: Authorization: Embed <token>)',
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
});

declare module 'fastify' {
  interface FastifyRequest {
    /** The typeahead instance of the request's embed token (Typeahead API routes only). */
    typeaheadInstance: import('./registry.js').ServedInstance | null;
  }
}
