// Users (`/api/users`, admins only) and the console's sessions (`/api/session`).
import { Type } from 'typebox';
import { adminActor } from '../history/actor.js';
import type { AppContext, Area, TypedApp } from '../http/area.js';
import { UnauthorizedError } from '../http/errors.js';
import { NoContent } from '../http/schemas.js';
import { SESSION_CHALLENGE, sessionOf } from './admin-auth.js';
import {
  userErrors as errors,
  SessionInfo,
  SignInBody,
  User,
  UserChangeBody,
  UserCreateBody,
  UserParams,
} from './schemas.js';
import {
  changeUser,
  createUser,
  endSession,
  getUser,
  listUsers,
  removeUser,
  startSession,
} from './service.js';
import { clearedSessionCookie, sessionCookie, sessionIdFrom } from './session-cookie.js';
import type { UsersParts } from './users-parts.js';

const tags = ['users'];
const config = { access: 'admin' as const };

/** Users, with the app's user parts so a change on this node takes effect at once. */
export function usersArea(users: UsersParts): Area {
  return { name: 'users', admin: (api, ctx) => userRoutes(api, ctx, users) };
}

function userRoutes(api: TypedApp, ctx: AppContext, users: UsersParts): void {
  const db = ctx.store.db;
  api.post(
    '/users',
    {
      config,
      schema: {
        tags,
        operationId: 'createUser',
        summary: 'Create a user',
        body: UserCreateBody,
        response: { 201: User, ...errors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createUser(db, request.body, ctx.now(), adminActor(request))),
  );
  api.get(
    '/users',
    {
      config,
      schema: {
        tags,
        operationId: 'listUsers',
        summary: 'List users',
        response: { 200: Type.Array(User), ...errors },
      },
    },
    () => listUsers(db),
  );
  api.get(
    '/users/:username',
    {
      config,
      schema: {
        tags,
        operationId: 'getUser',
        summary: 'A user',
        params: UserParams,
        response: { 200: User, ...errors },
      },
    },
    (request) => getUser(db, request.params.username),
  );
  api.patch(
    '/users/:username',
    {
      config,
      schema: {
        tags,
        operationId: 'updateUser',
        summary:
          "Change a user's password, role, studios or instances; a new password or role ends their sessions",
        params: UserParams,
        body: UserChangeBody,
        response: { 200: User, ...errors },
      },
    },
    async (request) => {
      const user = await changeUser(
        db,
        request.params.username,
        request.body,
        ctx.now(),
        adminActor(request),
      );
      users.forget(user.username);
      return user;
    },
  );
  api.delete(
    '/users/:username',
    {
      config,
      schema: {
        tags,
        operationId: 'deleteUser',
        summary: 'Delete a user and end their sessions',
        params: UserParams,
        response: { 204: NoContent, ...errors },
      },
    },
    async (request, reply) => {
      await removeUser(db, request.params.username, adminActor(request));
      users.forget(request.params.username);
      return reply.code(204).send(null);
    },
  );
}

/** `/api/session`: signing in and out of the console (outside the API's authentication). */
export function sessionRoutes(api: TypedApp, ctx: AppContext, parts: UsersParts): void {
  const sessionTags = ['session'];
  const secureFor = (protocol: string) => protocol === 'https' || ctx.config.cookieSecure;
  api.post(
    '/api/session',
    {
      schema: {
        tags: sessionTags,
        operationId: 'signIn',
        summary: 'Sign in: sets the session cookie (HttpOnly, SameSite=Strict) and answers the CSRF token',
        security: [],
        body: SignInBody,
        response: { 200: SessionInfo, ...errors },
      },
    },
    async (request, reply) => {
      const { username, password } = request.body;
      const user = await parts.passwords.check(request.ip, username, password, SESSION_CHALLENGE);
      const started = await startSession(ctx.store.db, user.username, ctx.now(), parts.auth.sessions);
      reply.header('set-cookie', sessionCookie(started.id, secureFor(request.protocol)));
      reply.header('cache-control', 'no-store');
      return {
        username: user.username,
        role: user.role,
        studios: user.studios,
        typeaheadInstances: user.typeaheadInstances,
        csrfToken: started.csrfToken,
      };
    },
  );
  api.get(
    '/api/session',
    {
      schema: {
        tags: sessionTags,
        operationId: 'getSession',
        summary: 'Who is signed in, their role, studios and instances, and the CSRF token',
        security: [{ session: [] }],
        response: { 200: SessionInfo, ...errors },
      },
    },
    async (request, reply) => {
      const session = await sessionOf(request, parts.auth);
      if (!session) throw new UnauthorizedError('nobody is signed in', SESSION_CHALLENGE);
      reply.header('cache-control', 'no-store');
      const { user } = session;
      return {
        username: user.username,
        role: user.role,
        studios: user.studios,
        typeaheadInstances: user.typeaheadInstances,
        csrfToken: session.csrfToken,
      };
    },
  );
  api.delete(
    '/api/session',
    {
      schema: {
        tags: sessionTags,
        operationId: 'signOut',
        summary: 'Sign out: ends the session (needs the CSRF token) and removes the cookie',
        security: [{ session: [] }],
        response: { 204: NoContent, ...errors },
      },
    },
    async (request, reply) => {
      const id = sessionIdFrom(request.headers.cookie);
      if (id !== undefined) {
        // An ended session signs out as well; an active one only with its CSRF token.
        const active = await sessionOf(request, parts.auth).catch((error: unknown) => {
          if (error instanceof UnauthorizedError) return undefined;
          throw error;
        });
        if (active) await endSession(ctx.store.db, id);
      }
      reply.header('set-cookie', clearedSessionCookie(secureFor(request.protocol)));
      return reply.code(204).send(null);
    },
  );
}
