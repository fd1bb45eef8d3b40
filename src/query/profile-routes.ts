// Query profiles and their search-only keys on the Administrative API, app-scoped like
// Fusion's. Each committed change is served by this node before the answer (`changing`).
import { Type } from 'typebox';
import { adminActor } from '../history/actor.js';
import type { AppContext, TypedApp } from '../http/area.js';
import { adminErrors, ErrorBodySchema, sharedRef } from '../http/schemas.js';
import {
  createKey,
  deleteProfile,
  getProfile,
  listKeys,
  listProfiles,
  revokeKey,
  writeProfile,
} from './profiles.js';
import type { QueryParts } from './query-parts.js';
import {
  KeyParams,
  NewQueryKeySchema,
  NewQueryProfileBody,
  ProfileParams,
  QueryKeySchema,
  QueryProfileBody,
  QueryProfileSchema,
} from './schemas.js';

const tags = ['query profiles'];
const Profile = sharedRef(QueryProfileSchema);
const errors = { ...adminErrors, 409: sharedRef(ErrorBodySchema) };

/** A committed change to the app's profiles or keys, served by this node before the answer. */
function changer(parts: QueryParts) {
  return async <T>(app: string, change: Promise<T>): Promise<T> => {
    const result = await change;
    await parts.profilesChanged(app);
    return result;
  };
}

/** Listing, reading, writing and deleting an app's query profiles. */
export function profileRoutes(api: TypedApp, ctx: AppContext, parts: QueryParts): void {
  const db = ctx.store.db;
  const changing = changer(parts);
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
}

/** A profile's search-only keys: made (shown once), listed by id, revoked. */
export function keyRoutes(api: TypedApp, ctx: AppContext, parts: QueryParts): void {
  const db = ctx.store.db;
  const changing = changer(parts);
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
}
