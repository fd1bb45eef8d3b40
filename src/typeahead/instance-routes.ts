// The typeahead instances on the Administrative API: their settings, embed tokens and a
// preview of their suggestions. Instances are global: the app scope of `/api/apps/{app}/…`
// does not narrow them.
import { Type } from 'typebox';
import { adminActor } from '../history/actor.js';
import type { AppContext, TypedApp } from '../http/area.js';
import { adminErrors, NoContent } from '../http/schemas.js';
import {
  EmbedTokenAnswer,
  IdParams,
  InstanceCreateBody,
  InstancePatchBody,
  InstanceWithToken,
  RotationQuery,
  SuggestionsQuery,
} from './schemas.js';
import {
  createInstance,
  getInstance,
  listInstances,
  patchInstance,
  previewIndex,
  removeInstance,
  rotateEmbedToken,
} from './service.js';
import { sendSuggestions } from './suggestions-endpoint.js';
import type { TypeaheadParts } from './typeahead-parts.js';

const tags = ['typeahead'];
const Suggestions = Type.Array(Type.String());
const base = '/typeahead/instances';
const withId = `${base}/:id`;

/** Creating, listing, changing and deleting instances. */
export function instanceRoutes(api: TypedApp, ctx: AppContext, typeahead: TypeaheadParts): void {
  const db = ctx.store.db;
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
      reply.code(201).send(await createInstance(db, typeahead, request.body, ctx.now(), adminActor(request))),
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
}

/** An instance's embed token and a preview of its suggestions. */
export function instanceTokenRoutes(api: TypedApp, ctx: AppContext, typeahead: TypeaheadParts): void {
  const db = ctx.store.db;
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
      const answer = index.answer(request.query.prefix ?? '', request.query.limit);
      return sendSuggestions(request, reply, instance, answer, false);
    },
  );
}
