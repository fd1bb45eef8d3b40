import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { type Area, appScope } from '../http/area.js';
import { adminErrors } from '../http/schemas.js';
import {
  DeleteQuery,
  DirectedQuery,
  type DirectedQueryType,
  type LinkBody,
  LinkFilterQuery,
  LinkSchema,
  ListQuery,
  type ListQueryType,
} from './schemas.js';
import { checkLinks, deleteLink, directedLinks, listLinks, listTransitive, putLink } from './service.js';

const tags = ['links'];
const LinkList = Type.Array(Type.Ref('Link'));

/** The Links API: the link graph between platform objects. */
export const linksArea: Area = {
  name: 'links',
  schemas: [LinkSchema],
  admin(api: FastifyInstance, ctx) {
    const db = ctx.store.db;
    api.get<{ Querystring: Record<string, string | undefined> }>(
      '/links/check',
      {
        schema: {
          tags,
          summary: 'Whether matching links exist (reversibility applies)',
          querystring: LinkFilterQuery,
          response: { 200: Type.Boolean(), ...adminErrors },
        },
      },
      async (request) => checkLinks(db, request.query, appScope(request)),
    );

    api.get<{ Querystring: ListQueryType }>(
      '/links',
      {
        schema: {
          tags,
          summary: 'List links',
          querystring: ListQuery,
          response: { 200: LinkList, ...adminErrors },
        },
      },
      async (request) => {
        const { transitive, limit, offset, ...filter } = request.query;
        const list = transitive ? listTransitive : listLinks;
        return list(db, filter, { limit, offset }, appScope(request));
      },
    );

    api.get<{ Querystring: DirectedQueryType }>(
      '/links/directed',
      {
        schema: {
          tags,
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
      api.route<{ Body: LinkBody }>({
        method,
        url: '/links',
        schema: {
          tags,
          summary: method === 'PUT' ? 'Create a link (idempotent)' : 'Create a link (synonym of PUT)',
          body: Type.Ref('Link'),
          response: { 200: Type.Ref('Link'), ...adminErrors },
        },
        handler: async (request) => putLink(db, request.body, ctx.now(), appScope(request)),
      });
    }

    api.delete<{ Querystring: { subject: string; object: string; linkType: string } }>(
      '/links',
      { schema: { tags, summary: 'Delete a link (either direction)', querystring: DeleteQuery } },
      async (request, reply) => {
        await deleteLink(db, request.query, appScope(request));
        return reply.code(204).send();
      },
    );
  },
};
