// Administrative API of studios and their API clients, and the studios area of the app.

import { Type } from 'typebox';
import { adminActor } from '../history/actor.js';
import type { AppContext, Area, TypedApp } from '../http/area.js';
import { NoContent } from '../http/schemas.js';
import { SecretBox } from '../security/secret-box.js';
import {
  ChangedStudio,
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
  TargetSecrets,
} from './schemas.js';
import {
  type ClientsChange,
  changeStudio,
  createClient,
  createStudio,
  deleteClient,
  deleteStudio,
  getStudio,
  listClients,
  listStudios,
  rotateSyncTargetSecrets,
  type StudioDependants,
} from './service.js';

const tags = ['studios'];

/**
 * What other areas keep of a studio's API clients (evaluation's copies of the studios). A
 * change of the clients runs the change's `inside` in its transaction and `committed` after
 * the commit, before the answer; a studio's delete is told after its commit. None throws
 * but `inside`, whose failure fails the change.
 */
export interface ClientsListener {
  clientsChange(studioId: string): ClientsChange;
  studioRemoved(studioId: string): Promise<void>;
}

/**
 * Studios and their API clients (the token endpoint is the oauth area's). `dependants` are
 * what other areas keep in a studio, which an unforced delete must not take with it, and
 * what in other areas uses a studio, which no delete may leave naming nothing.
 */
export function studiosArea(dependants: StudioDependants, clients: ClientsListener): Area {
  return { name: 'studios', admin: (api, ctx) => studioRoutes(api, ctx, dependants, clients) };
}

/** `/studios…` of the Administrative API. Studios are global: an app scope does not narrow them. */
function studioRoutes(
  api: TypedApp,
  ctx: AppContext,
  dependants: StudioDependants,
  clients: ClientsListener,
): void {
  const db = ctx.store.db;
  const box = new SecretBox(ctx.secretKey);
  api.post(
    '/studios',
    {
      schema: {
        tags,
        operationId: 'createStudio',
        summary: 'Create a studio',
        body: StudioCreateBody,
        response: { 201: Studio, ...errors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createStudio(db, request.body, ctx.now(), adminActor(request))),
  );
  api.get(
    '/studios',
    {
      schema: {
        tags,
        operationId: 'listStudios',
        summary: 'List studios',
        response: { 200: Type.Array(Studio) },
      },
    },
    () => listStudios(db),
  );
  api.get(
    '/studios/:id',
    {
      schema: {
        tags,
        operationId: 'getStudio',
        summary: 'A studio',
        params: StudioParams,
        response: { 200: Studio, ...errors },
      },
    },
    (request) => getStudio(db, request.params.id),
  );
  api.put(
    '/studios/:id',
    {
      schema: {
        tags,
        operationId: 'updateStudio',
        summary:
          'Rename a studio or set its sync targets (webhooks); the secret of a new target is shown only here',
        params: StudioParams,
        body: StudioChangeBody,
        response: { 200: ChangedStudio, ...errors },
      },
    },
    (request) => changeStudio(db, box, request.params.id, request.body, ctx.now(), adminActor(request)),
  );
  api.post(
    '/studios/:id/sync-target-secrets',
    {
      schema: {
        tags,
        operationId: 'rotateSyncTargetSecrets',
        summary: 'Give every sync target a new signing secret, shown only in this answer',
        params: StudioParams,
        response: { 200: TargetSecrets, ...errors },
      },
    },
    (request) => rotateSyncTargetSecrets(db, box, request.params.id, ctx.now(), adminActor(request)),
  );
  api.delete(
    '/studios/:id',
    {
      schema: {
        tags,
        operationId: 'deleteStudio',
        summary:
          'Delete a studio (with its rules and rewrites only when forced); refused while a query profile or experiment uses it',
        params: StudioParams,
        querystring: StudioDeleteQuery,
        response: { 204: NoContent, ...errors },
      },
    },
    async (request, reply) => {
      await deleteStudio(
        db,
        request.params.id,
        request.query.force === true,
        dependants,
        adminActor(request),
      );
      await clients.studioRemoved(request.params.id);
      return reply.code(204).send(null);
    },
  );

  api.post(
    '/studios/:id/clients',
    {
      schema: {
        tags,
        operationId: 'createApiClient',
        summary: 'Create an API client; its secret is shown only in this answer',
        params: StudioParams,
        body: ClientCreateBody,
        response: { 201: CreatedClient, ...errors },
      },
    },
    async (request, reply) => {
      const change = clients.clientsChange(request.params.id);
      const created = await createClient(
        db,
        request.params.id,
        request.body,
        ctx.now(),
        adminActor(request),
        change,
      );
      await change.committed();
      return reply.code(201).send(created);
    },
  );
  api.get(
    '/studios/:id/clients',
    {
      schema: {
        tags,
        operationId: 'listApiClients',
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
        operationId: 'deleteApiClient',
        summary: 'Revoke an API client and every token issued to it',
        params: ClientParams,
        response: { 204: NoContent, ...errors },
      },
    },
    async (request, reply) => {
      const change = clients.clientsChange(request.params.id);
      await deleteClient(db, request.params.id, request.params.clientId, adminActor(request), change);
      await change.committed();
      return reply.code(204).send(null);
    },
  );
}
