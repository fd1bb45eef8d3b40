// Administrative API of studios and their API clients, and the studios area of the app.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext, Area } from '../http/area.js';
import {
  Client,
  ClientCreateBody,
  ClientParams,
  CreatedClient,
  studioErrors as errors,
  Studio,
  StudioChangeBody,
  StudioCreateBody,
  StudioDeleteQuery,
  StudioParams,
} from './schemas.js';
import {
  changeStudio,
  createClient,
  createStudio,
  deleteClient,
  deleteStudio,
  getStudio,
  listClients,
  listStudios,
} from './service.js';

const tags = ['studios'];

/** Studios and their API clients (the token endpoint is the oauth area's). */
export const studiosArea: Area = { name: 'studios', admin: studioRoutes };

/** `/studios…` of the Administrative API. Studios are global: an app scope does not narrow them. */
function studioRoutes(admin: FastifyInstance, ctx: AppContext): void {
  const api = admin.withTypeProvider<TypeBoxTypeProvider>();
  const db = ctx.store.db;
  api.post(
    '/studios',
    {
      schema: {
        tags,
        summary: 'Create a studio',
        body: StudioCreateBody,
        response: { 201: Studio, ...errors },
      },
    },
    async (request, reply) => reply.code(201).send(await createStudio(db, request.body, ctx.now())),
  );
  api.get(
    '/studios',
    { schema: { tags, summary: 'List studios', response: { 200: Type.Array(Studio) } } },
    () => listStudios(db),
  );
  api.get(
    '/studios/:id',
    { schema: { tags, summary: 'A studio', params: StudioParams, response: { 200: Studio, ...errors } } },
    (request) => getStudio(db, request.params.id),
  );
  api.put(
    '/studios/:id',
    {
      schema: {
        tags,
        summary: 'Rename a studio or set its sync targets (webhooks)',
        params: StudioParams,
        body: StudioChangeBody,
        response: { 200: Studio, ...errors },
      },
    },
    (request) => changeStudio(db, request.params.id, request.body),
  );
  api.delete(
    '/studios/:id',
    {
      schema: {
        tags,
        summary: 'Delete a studio (with its rules only when forced)',
        params: StudioParams,
        querystring: StudioDeleteQuery,
      },
    },
    async (request, reply) => {
      await deleteStudio(db, request.params.id, request.query.force === true);
      return reply.code(204).send();
    },
  );

  api.post(
    '/studios/:id/clients',
    {
      schema: {
        tags,
        summary: 'Create an API client; its secret is shown only in this answer',
        params: StudioParams,
        body: ClientCreateBody,
        response: { 201: CreatedClient, ...errors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createClient(db, request.params.id, request.body, ctx.now())),
  );
  api.get(
    '/studios/:id/clients',
    {
      schema: {
        tags,
        summary: 'List API clients (never their secrets)',
        params: StudioParams,
        response: { 200: Type.Array(Client), ...errors },
      },
    },
    (request) => listClients(db, request.params.id),
  );
  api.delete(
    '/studios/:id/clients/:clientId',
    {
      schema: {
        tags,
        summary: 'Revoke an API client and every token issued to it',
        params: ClientParams,
      },
    },
    async (request, reply) => {
      await deleteClient(db, request.params.id, request.params.clientId);
      return reply.code(204).send();
    },
  );
}
