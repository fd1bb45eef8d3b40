import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { Type } from 'typebox';
import type { Store } from '../storage/database.js';
import { isMigrated } from '../storage/migrate.js';
import type { TypedApp } from './area.js';
import { sendError } from './error-handler.js';
import { ErrorBodySchema, sharedRef } from './schemas.js';

const tags = ['operations'];
const Status = Type.Object({ status: Type.String() });

/** `/health` (the process answers) and `/ready` (database reachable, migrations applied); no credential. */
export function healthRoutes(app: TypedApp, store: Store): void {
  app.get(
    '/health',
    {
      schema: { tags, operationId: 'getHealth', summary: 'The process is alive', response: { 200: Status } },
    },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/ready',
    {
      schema: {
        tags,
        operationId: 'getReadiness',
        summary: 'The database answers and every migration is applied',
        response: { 200: Status, 503: sharedRef(ErrorBodySchema) },
      },
    },
    async (request, reply) => {
      // Readiness asks storage directly: there is no domain behind it.
      const ready = await isMigrated(store).catch(() => false);
      if (!ready)
        return sendError(request, reply, 'not-ready', 'the database is unreachable or not migrated');
      return { status: 'ready' };
    },
  );
}

/** `/metrics` in Prometheus text format (mounted behind admin authentication). */
export function metricsRoute(admin: FastifyInstance, metrics: Registry): void {
  admin.get(
    '/metrics',
    {
      schema: {
        tags,
        operationId: 'getMetrics',
        summary: 'Prometheus metrics',
      },
      config: {
        openapi: {
          response: {
            200: {
              description: 'The metrics in Prometheus text format',
              content: { 'text/plain': { schema: { type: 'string' } } },
            },
          },
        },
      },
    },
    async (_request, reply) => reply.type(metrics.contentType).send(await metrics.metrics()),
  );
}
