// Experiments on the Administrative API, app-scoped like Fusion's: written, read, deleted,
// promoted. Each committed change is served by this node before the answer, as profiles are.
import { Type } from 'typebox';
import { adminActor } from '../history/actor.js';
import type { AppContext, TypedApp } from '../http/area.js';
import { adminErrors, ErrorBodySchema, sharedRef } from '../http/schemas.js';
import type { QueryParts } from '../query/query-parts.js';
import { experimentMetrics } from './metrics.js';
import {
  ExperimentBody,
  ExperimentMetricsSchema,
  ExperimentParams,
  ExperimentSchema,
  NewExperimentBody,
  PromoteBody,
  PromotionSchema,
} from './schemas.js';
import { deleteExperiment, getExperiment, listExperiments, promote, writeExperiment } from './service.js';

const tags = ['experiments'];
const Experiment = sharedRef(ExperimentSchema);
const errors = { ...adminErrors, 409: sharedRef(ErrorBodySchema) };

export function experimentRoutes(api: TypedApp, ctx: AppContext, parts: QueryParts): void {
  const db = ctx.store.db;
  const changing = async <T>(app: string, change: Promise<T>): Promise<T> => {
    const result = await change;
    await parts.profilesChanged(app);
    return result;
  };
  api.get(
    '/experiments',
    {
      schema: {
        tags,
        operationId: 'listExperiments',
        summary: "The app's experiments",
        params: Type.Object({ app: Type.String() }),
        response: { 200: Type.Array(Experiment), ...adminErrors },
      },
    },
    (request) => listExperiments(db, request.params.app, ctx.now()),
  );
  api.post(
    '/experiments',
    {
      schema: {
        tags,
        operationId: 'createExperiment',
        summary: 'Create an experiment',
        params: Type.Object({ app: Type.String() }),
        body: sharedRef(NewExperimentBody),
        response: { 200: Experiment, ...errors },
      },
    },
    (request) => {
      const { id, ...body } = request.body;
      return changing(
        request.params.app,
        writeExperiment(db, request.params.app, id, body, 'create', ctx.now(), adminActor(request)),
      );
    },
  );
  api.get(
    '/experiments/:id',
    {
      schema: {
        tags,
        operationId: 'getExperiment',
        summary: 'One experiment',
        params: ExperimentParams,
        response: { 200: Experiment, ...adminErrors },
      },
    },
    (request) => getExperiment(db, request.params.app, request.params.id, ctx.now()),
  );
  api.put(
    '/experiments/:id',
    {
      schema: {
        tags,
        operationId: 'putExperiment',
        summary: 'Create or replace an experiment (409 while it runs, except `enabled`)',
        params: ExperimentParams,
        body: sharedRef(ExperimentBody),
        response: { 200: Experiment, ...errors },
      },
    },
    (request) =>
      changing(
        request.params.app,
        writeExperiment(
          db,
          request.params.app,
          request.params.id,
          request.body,
          'put',
          ctx.now(),
          adminActor(request),
        ),
      ),
  );
  api.delete(
    '/experiments/:id',
    {
      schema: {
        tags,
        operationId: 'deleteExperiment',
        summary: 'Delete an experiment no profile runs',
        params: ExperimentParams,
        response: { 204: Type.Null(), ...errors },
      },
    },
    async (request, reply) => {
      await changing(
        request.params.app,
        deleteExperiment(db, request.params.app, request.params.id, ctx.now(), adminActor(request)),
      );
      return reply.code(204).send(null);
    },
  );
  api.get(
    '/experiments/:id/metrics',
    {
      schema: {
        tags,
        operationId: 'getExperimentMetrics',
        summary:
          "Each variant's searches, shoppers, click-through, conversion and no-result rates with 95 % intervals, and against the control",
        params: ExperimentParams,
        response: { 200: ExperimentMetricsSchema, ...adminErrors },
      },
    },
    (request) => experimentMetrics(db, request.params.app, request.params.id, ctx.now()),
  );
  api.post(
    '/experiments/:id/promote',
    {
      schema: {
        tags,
        operationId: 'promoteExperimentVariant',
        summary:
          "Make a variant the profile's defaults and studio, stop the experiment and take it off the profile",
        params: ExperimentParams,
        body: sharedRef(PromoteBody),
        response: { 200: PromotionSchema, ...errors },
      },
    },
    (request) =>
      changing(
        request.params.app,
        promote(
          db,
          request.params.app,
          request.params.id,
          request.body.variant,
          ctx.now(),
          adminActor(request),
        ),
      ),
  );
}
