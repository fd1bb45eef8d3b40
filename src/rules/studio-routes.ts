// Administrative API of studios and their API clients.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../http/area.js';
import { adminErrors, IdString } from '../http/schemas.js';
import {
  changeStudio,
  createClient,
  createStudio,
  deleteClient,
  deleteStudio,
  getStudio,
  listClients,
  listStudios,
  SCOPES,
  type Scope,
} from './studio-service.js';

const tags = ['studios'];
const Name = Type.String({ minLength: 1, maxLength: 200 });
const WebhookUrl = Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048 });
const Studio = Type.Object({
  id: Type.String(),
  name: Type.String(),
  syncTargets: Type.Array(Type.String()),
  createdAt: Type.String(),
});
const Client = Type.Object({
  clientId: Type.String(),
  studioId: Type.String(),
  name: Type.String(),
  scopes: Type.Array(Type.String()),
  createdAt: Type.String(),
});
const StudioParams = Type.Object({ id: IdString });
const errors = { ...adminErrors, 409: Type.Ref('ErrorBody') };

/** `/studios…` of the Administrative API. Studios are global: an app scope does not narrow them. */
export function studioRoutes(api: FastifyInstance, ctx: AppContext): void {
  const db = ctx.store.db;
  api.post<{ Body: { id: string; name: string } }>(
    '/studios',
    {
      schema: {
        tags,
        summary: 'Create a studio',
        body: Type.Object({ id: IdString, name: Name }, { additionalProperties: false }),
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
  api.get<{ Params: { id: string } }>(
    '/studios/:id',
    { schema: { tags, summary: 'A studio', params: StudioParams, response: { 200: Studio, ...errors } } },
    (request) => getStudio(db, request.params.id),
  );
  api.put<{ Params: { id: string }; Body: { name?: string; syncTargets?: string[] } }>(
    '/studios/:id',
    {
      schema: {
        tags,
        summary: 'Rename a studio or set its sync targets (webhooks)',
        params: StudioParams,
        body: Type.Object(
          { name: Type.Optional(Name), syncTargets: Type.Optional(Type.Array(WebhookUrl, { maxItems: 20 })) },
          { additionalProperties: false },
        ),
        response: { 200: Studio, ...errors },
      },
    },
    (request) => changeStudio(db, request.params.id, request.body),
  );
  api.delete<{ Params: { id: string }; Querystring: { force?: boolean } }>(
    '/studios/:id',
    {
      schema: {
        tags,
        summary: 'Delete a studio (with its rules only when forced)',
        params: StudioParams,
        querystring: Type.Object({ force: Type.Optional(Type.Boolean()) }),
      },
    },
    async (request, reply) => {
      await deleteStudio(db, request.params.id, request.query.force === true);
      return reply.code(204).send();
    },
  );

  api.post<{ Params: { id: string }; Body: { name: string; scopes?: Scope[] } }>(
    '/studios/:id/clients',
    {
      schema: {
        tags,
        summary: 'Create an API client; its secret is shown only in this answer',
        params: StudioParams,
        body: Type.Object(
          { name: Name, scopes: Type.Optional(Type.Array(Type.Enum(SCOPES), { minItems: 1 })) },
          { additionalProperties: false },
        ),
        response: { 201: Type.Object({ ...Client.properties, clientSecret: Type.String() }), ...errors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createClient(db, request.params.id, request.body, ctx.now())),
  );
  api.get<{ Params: { id: string } }>(
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
  api.delete<{ Params: { id: string; clientId: string } }>(
    '/studios/:id/clients/:clientId',
    {
      schema: {
        tags,
        summary: 'Revoke an API client and every token issued to it',
        params: Type.Object({ id: IdString, clientId: Type.String() }),
      },
    },
    async (request, reply) => {
      await deleteClient(db, request.params.id, request.params.clientId);
      return reply.code(204).send();
    },
  );
}
