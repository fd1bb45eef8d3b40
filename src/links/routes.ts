import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { adminActor } from '../history/actor.js';
import { type Area, appScope } from '../http/area.js';
import { adminErrors, NoContent, sharedRef } from '../http/schemas.js';
import { canonicalLinkType } from './link-types.js';
import { DeleteQuery, DirectedQuery, LinkFilterQuery, LinkSchema, ListQuery } from './schemas.js';
import { checkLinks, deleteLink, directedLinks, findLinks, listApps, putLink } from './service.js';

const tags = ['links'];
const Link = sharedRef(LinkSchema);
const LinkList = Type.Array(Link);
const AppList = Type.Array(
  Type.Object({
    id: Type.String({ description: 'The app, as in `/api/apps/{app}` and the link end `app:{app}`' }),
    name: Type.String({ description: 'The same as `id`: searchdeck keeps no display name' }),
  }),
);

/** The Links API: the link graph between platform objects. */
export const linksArea: Area = {
  name: 'links',
  schemas: [LinkSchema],
  admin(api, ctx) {
    const db = ctx.store.db;
    // The apps themselves are listed once, at `/api/apps`, not inside an app's scope.
    if (!api.prefix.includes(':app')) {
      api.get(
        '/apps',
        {
          schema: {
            tags: ['apps'],
            operationId: 'listApps',
            summary: 'The apps named in the link graph',
            response: { 200: AppList, ...adminErrors },
          },
        },
        async () => listApps(db),
      );
    }
    api.get(
      '/links/check',
      {
        schema: {
          tags,
          operationId: 'checkLinks',
          summary: 'Whether matching links exist (reversibility applies)',
          querystring: LinkFilterQuery,
          response: { 200: Type.Boolean(), ...adminErrors },
        },
        preValidation: linkTypeInAnyCase('query'),
      },
      async (request) => checkLinks(db, request.query, appScope(request)),
    );

    api.get(
      '/links',
      {
        schema: {
          tags,
          operationId: 'listLinks',
          summary: 'List links',
          querystring: ListQuery,
          response: { 200: LinkList, ...adminErrors },
        },
        preValidation: linkTypeInAnyCase('query'),
      },
      async (request) => {
        const { transitive, limit, offset, ...filter } = request.query;
        return findLinks(db, filter, { transitive, page: { limit, offset } }, appScope(request));
      },
    );

    api.get(
      '/links/directed',
      {
        schema: {
          tags,
          operationId: 'listDirectedLinks',
          summary: 'Outgoing links of one object',
          querystring: DirectedQuery,
          response: { 200: LinkList, ...adminErrors },
        },
      },
      async (request) => {
        const { resource, exclusive, limit, offset } = request.query;
        return directedLinks(db, resource, exclusive, { limit, offset }, appScope(request));
      },
    );

    for (const method of ['PUT', 'POST'] as const) {
      api.route({
        method,
        url: '/links',
        schema: {
          tags,
          operationId: method === 'PUT' ? 'putLink' : 'postLink',
          summary: method === 'PUT' ? 'Create a link (idempotent)' : 'Create a link (synonym of PUT)',
          body: Link,
          response: { 200: Link, ...adminErrors },
        },
        preValidation: linkTypeInAnyCase('body'),
        handler: async (request) =>
          putLink(db, request.body, ctx.now(), appScope(request), adminActor(request)),
      });
    }

    api.delete(
      '/links',
      {
        schema: {
          tags,
          operationId: 'deleteLink',
          summary: 'Delete a link (either direction)',
          querystring: DeleteQuery,
          response: { 204: NoContent },
        },
        preValidation: linkTypeInAnyCase('query'),
      },
      async (request, reply) => {
        await deleteLink(db, request.query, appScope(request), adminActor(request));
        return reply.code(204).send(null);
      },
    );
  },
};

/** Writes a `linkType` given in any case in camelCase, so that the schema's enum checks it. */
function linkTypeInAnyCase(part: 'query' | 'body') {
  return async (request: FastifyRequest): Promise<void> => {
    const input = request[part];
    if (typeof input !== 'object' || input === null || !('linkType' in input)) return;
    const given = (input as { linkType: unknown }).linkType;
    if (typeof given === 'string')
      (input as { linkType: string }).linkType = canonicalLinkType(given) ?? given;
  };
}
