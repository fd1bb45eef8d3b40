// Query profiles and their keys (Administrative API, app-scoped) and the query endpoint
// (a profile's search-only key, a user's Basic credentials or console session).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { EvaluationParts } from '../evaluation/evaluation-parts.js';
import { EvaluationService } from '../evaluation/service.js';
import { adminActor } from '../history/actor.js';
import type { Area } from '../http/area.js';
import { UnauthorizedError } from '../http/errors.js';
import { adminErrors, ErrorBodySchema, sharedRef } from '../http/schemas.js';
import { sessionIdFrom } from '../users/session-cookie.js';
import {
  createKey,
  deleteProfile,
  getProfile,
  listKeys,
  listProfiles,
  revokeKey,
  writeProfile,
} from './profiles.js';
import { queryLane } from './query-lane.js';
import type { QueryParts } from './query-parts.js';
import {
  KeyParams,
  NewQueryKeySchema,
  NewQueryProfileBody,
  ProfileParams,
  QueryKeySchema,
  QueryParams,
  QueryProfileBody,
  QueryProfileSchema,
} from './schemas.js';
import { QueryService } from './service.js';

const tags = ['query profiles'];
const Profile = sharedRef(QueryProfileSchema);
const errors = { ...adminErrors, 409: sharedRef(ErrorBodySchema) };
const CHALLENGE = 'Bearer realm="searchdeck-query", Basic realm="searchdeck", charset="UTF-8"';

/** A user's Basic credentials or console session, to let users call the query endpoint too. */
export type UserCheck = (request: FastifyRequest) => Promise<void>;

export function queryArea(parts: QueryParts, evaluationParts: EvaluationParts, userCheck: UserCheck): Area {
  /** A committed change to the app's profiles or keys: served by this node before the answer. */
  const changing = async <T>(app: string, change: Promise<T>): Promise<T> => {
    const result = await change;
    await parts.profilesChanged(app);
    return result;
  };
  return {
    name: 'query',
    schemas: [QueryProfileSchema, QueryProfileBody, NewQueryProfileBody],
    admin(untyped: FastifyInstance, ctx) {
      // App-scoped only: profiles live in an app, like Fusion's.
      if (!untyped.prefix.includes(':app')) return;
      const api = untyped.withTypeProvider<TypeBoxTypeProvider>();
      const db = ctx.store.db;
      api.get(
        '/query-profiles',
        {
          schema: {
            tags,
            operationId: 'listQueryProfiles',
            summary: "The app's query profiles",
            params: Type.Object({ app: Type.String() }),
            response: { 200: Type.Array(Profile), ...adminErrors },
          },
        },
        (request) => listProfiles(db, request.params.app),
      );
      api.post(
        '/query-profiles',
        {
          schema: {
            tags,
            operationId: 'createQueryProfile',
            summary: 'Create a query profile',
            params: Type.Object({ app: Type.String() }),
            body: sharedRef(NewQueryProfileBody),
            response: { 200: Profile, ...errors },
          },
        },
        (request) => {
          const { id, ...body } = request.body;
          return changing(
            request.params.app,
            writeProfile(db, request.params.app, id, body, 'create', ctx.now(), {
              actor: adminActor(request),
            }),
          );
        },
      );
      api.get(
        '/query-profiles/:id',
        {
          schema: {
            tags,
            operationId: 'getQueryProfile',
            summary: 'One query profile',
            params: ProfileParams,
            response: { 200: Profile, ...adminErrors },
          },
        },
        (request) => getProfile(db, request.params.app, request.params.id),
      );
      api.put(
        '/query-profiles/:id',
        {
          schema: {
            tags,
            operationId: 'putQueryProfile',
            summary: 'Create or replace a query profile',
            params: ProfileParams,
            body: sharedRef(QueryProfileBody),
            response: { 200: Profile, ...errors },
          },
        },
        (request) =>
          changing(
            request.params.app,
            writeProfile(db, request.params.app, request.params.id, request.body, 'put', ctx.now(), {
              actor: adminActor(request),
            }),
          ),
      );
      api.delete(
        '/query-profiles/:id',
        {
          schema: {
            tags,
            operationId: 'deleteQueryProfile',
            summary: 'Delete a query profile, its keys and links',
            params: ProfileParams,
            response: { 204: Type.Null(), ...adminErrors },
          },
        },
        async (request, reply) => {
          await changing(
            request.params.app,
            deleteProfile(db, request.params.app, request.params.id, ctx.now(), adminActor(request)),
          );
          return reply.code(204).send(null);
        },
      );
      api.post(
        '/query-profiles/:id/keys',
        {
          schema: {
            tags,
            operationId: 'createQueryKey',
            summary: 'A new search-only key of the profile (shown in this answer only)',
            params: ProfileParams,
            response: { 200: NewQueryKeySchema, ...adminErrors },
          },
        },
        (request) =>
          changing(
            request.params.app,
            createKey(db, request.params.app, request.params.id, ctx.now(), adminActor(request)),
          ),
      );
      api.get(
        '/query-profiles/:id/keys',
        {
          schema: {
            tags,
            operationId: 'listQueryKeys',
            summary: "The profile's keys (ids only)",
            params: ProfileParams,
            response: { 200: Type.Array(QueryKeySchema), ...adminErrors },
          },
        },
        (request) => listKeys(db, request.params.app, request.params.id),
      );
      api.delete(
        '/query-profiles/:id/keys/:keyId',
        {
          schema: {
            tags,
            operationId: 'revokeQueryKey',
            summary: 'Revoke a key',
            params: KeyParams,
            response: { 204: Type.Null(), ...adminErrors },
          },
        },
        async (request, reply) => {
          await changing(
            request.params.app,
            revokeKey(
              db,
              request.params.app,
              request.params.id,
              request.params.keyId,
              ctx.now(),
              adminActor(request),
            ),
          );
          return reply.code(204).send(null);
        },
      );
    },
    async public(root, ctx) {
      const service = new QueryService(parts, new EvaluationService(ctx.store.db, evaluationParts, ctx.now));
      ctx.lanes.add(queryLane(service, parts.served));
      await root.register(async (untyped) => {
        const app = untyped.withTypeProvider<TypeBoxTypeProvider>();
        // The endpoint takes a form, as Solr does; a JSON body is refused (415), not ignored.
        app.removeContentTypeParser('application/json');
        app.addContentTypeParser(
          'application/x-www-form-urlencoded',
          { parseAs: 'string' },
          (_request, body, done) => done(null, body),
        );
        app.addHook('preHandler', async (request) => {
          const header = request.headers.authorization ?? '';
          const { app: appId, profile } = request.params as { app: string; profile: string };
          if (/^bearer /i.test(header)) {
            if (parts.served.keyOpens(header.slice(7).trim(), appId, profile)) return;
            throw new UnauthorizedError('invalid or revoked key for this query profile', CHALLENGE);
          }
          if (/^basic /i.test(header)) return userCheck(request);
          // The console's query workbench: a signed-in user's session, as for the Rules API.
          if (header === '' && sessionIdFrom(request.headers.cookie) !== undefined) return userCheck(request);
          throw new UnauthorizedError(
            "a query profile's key (Bearer) or admin credentials (Basic) are required",
            CHALLENGE,
          );
        });
        const schema = {
          tags: ['query'],
          summary:
            "A shopper's query through a profile: Solr's JSON answer, plus `fusion` (what searchdeck did)",
          params: QueryParams,
          response: {
            // Sent as the text built from Solr's answer (Solr's members unchanged), not re-serialized.
            200: Type.Unsafe<string>({
              type: 'object',
              additionalProperties: true,
              description: "Solr's JSON answer as Solr gave it, plus `fusion`: what searchdeck did",
            }),
            ...Object.fromEntries(
              [400, 401, 404, 502, 504].map((status) => [status, sharedRef(ErrorBodySchema)]),
            ),
          },
        };
        app.get(
          '/api/apps/:app/query/:profile',
          { schema: { ...schema, operationId: 'query' } },
          async (request, reply) => {
            // A query the lane already sent and Solr failed: answered here, not sent again.
            const handed = service.takeHandedOver(request.raw);
            if (handed !== undefined) throw handed;
            const search = new URLSearchParams(
              request.url.slice(request.url.indexOf('?') + 1 || request.url.length),
            );
            const body = await service.query(request.params.app, request.params.profile, search);
            return reply.type('application/json; charset=utf-8').send(body);
          },
        );
        app.post(
          '/api/apps/:app/query/:profile',
          { schema: { ...schema, operationId: 'queryForm' } },
          async (request, reply) => {
            const search = new URLSearchParams(typeof request.body === 'string' ? request.body : '');
            const body = await service.query(request.params.app, request.params.profile, search);
            return reply.type('application/json; charset=utf-8').send(body);
          },
        );
      });
    },
  };
}
