import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { adminActor } from '../history/actor.js';
import { type Area, appScope } from '../http/area.js';
import { adminErrors, ErrorBodySchema, sharedRef } from '../http/schemas.js';
import { SecretBox } from '../security/secret-box.js';
import { clusterCheckRecorder } from './check-metrics.js';
import { ClusterCheckError } from './errors.js';
import {
  ClusterNodeSchema,
  ClusterStatusSchema,
  DeleteQuery,
  IdParams,
  NewSearchClusterBody,
  SearchClusterBody,
  SearchClusterSchema,
  SolrSystemInfoSchema,
  SystemInfoQuery,
  ValidateQuery,
} from './schemas.js';
import {
  clusterCollections,
  clusterNodes,
  clusterStatus,
  clusterSystemInfo,
  createCluster,
  deleteCluster,
  getCluster,
  listClusters,
  putCluster,
} from './service.js';

const tags = ['search clusters'];
const Cluster = sharedRef(SearchClusterSchema);
const clusterErrors = { ...adminErrors, 409: sharedRef(ErrorBodySchema) };

/** Search-cluster definitions: how searchdeck reaches existing Solr clusters, checked for real. */
export const clustersArea: Area = {
  name: 'clusters',
  schemas: [
    SearchClusterSchema,
    SearchClusterBody,
    NewSearchClusterBody,
    ClusterStatusSchema,
    ClusterNodeSchema,
    SolrSystemInfoSchema,
  ],
  admin(api, ctx) {
    const db = ctx.store.db;
    const box = new SecretBox(ctx.secretKey);
    const recordCheck = clusterCheckRecorder(ctx.metrics);

    api.get(
      '/searchCluster',
      {
        schema: {
          tags,
          operationId: 'listSearchClusters',
          summary: 'All search-cluster definitions (in an app: those in its context)',
          response: { 200: Type.Array(Cluster), ...adminErrors },
        },
      },
      async (request) => listClusters(db, { app: appScope(request) }),
    );

    api.post(
      '/searchCluster',
      {
        schema: {
          tags,
          operationId: 'createSearchCluster',
          summary: 'Create a search-cluster definition (in an app: also puts it in the app context)',
          querystring: ValidateQuery,
          body: sharedRef(NewSearchClusterBody),
          response: { 200: Cluster, ...clusterErrors },
        },
      },
      async (request) =>
        logFailedCheck(
          request,
          request.body.id,
          createCluster(db, box, request.body, {
            validate: request.query.validate,
            app: appScope(request),
            now: ctx.now(),
            recordCheck,
            actor: adminActor(request),
          }),
        ),
    );

    api.get(
      '/searchCluster/:id',
      {
        schema: {
          tags,
          operationId: 'getSearchCluster',
          summary: 'One search-cluster definition',
          params: IdParams,
          response: { 200: Cluster, ...adminErrors },
        },
      },
      async (request) => getCluster(db, request.params.id, { app: appScope(request) }),
    );

    api.put(
      '/searchCluster/:id',
      {
        schema: {
          tags,
          operationId: 'putSearchCluster',
          summary: 'Create or replace a search-cluster definition; an absent or masked secret is kept',
          params: IdParams,
          querystring: ValidateQuery,
          body: sharedRef(SearchClusterBody),
          response: { 200: Cluster, ...clusterErrors },
        },
      },
      async (request) =>
        logFailedCheck(
          request,
          request.params.id,
          putCluster(db, box, request.params.id, request.body, {
            validate: request.query.validate,
            app: appScope(request),
            now: ctx.now(),
            recordCheck,
            actor: adminActor(request),
          }),
        ),
    );

    api.delete(
      '/searchCluster/:id',
      {
        schema: {
          tags,
          operationId: 'deleteSearchCluster',
          summary: 'Delete a search-cluster definition and its links (409 while something depends on it)',
          params: IdParams,
          querystring: DeleteQuery,
          response: { 204: Type.Null(), ...clusterErrors },
        },
      },
      async (request, reply) => {
        await deleteCluster(db, request.params.id, {
          force: request.query.force,
          app: appScope(request),
          actor: adminActor(request),
        });
        return reply.code(204).send(null);
      },
    );

    api.get(
      '/searchCluster/:id/nodes',
      {
        schema: {
          tags,
          operationId: 'listSearchClusterNodes',
          summary: 'The live Solr nodes as the cluster reports them now',
          params: IdParams,
          response: { 200: Type.Array(sharedRef(ClusterNodeSchema)), ...adminErrors },
        },
      },
      async (request) =>
        logFailedCheck(
          request,
          request.params.id,
          clusterNodes(db, box, request.params.id, { app: appScope(request) }),
        ),
    );

    api.get(
      '/searchCluster/:id/collections',
      {
        schema: {
          tags,
          operationId: 'listSearchClusterCollections',
          summary:
            "The names of the cluster's collections (a standalone Solr's cores), asked now, sorted: what a query profile may search",
          params: IdParams,
          response: {
            200: Type.Array(Type.String(), { examples: [['products', 'products-staging']] }),
            ...adminErrors,
          },
        },
      },
      async (request) =>
        logFailedCheck(
          request,
          request.params.id,
          clusterCollections(db, box, request.params.id, { app: appScope(request) }),
        ),
    );

    const SystemInfo = sharedRef(SolrSystemInfoSchema);
    api.get(
      '/searchCluster/:id/systemInfo',
      {
        schema: {
          tags,
          operationId: 'getSearchClusterSystemInfo',
          summary:
            "The system information of the cluster's Solr nodes, asked now: one node's (the named one, or the first that answers), or with all=true every live node's by name",
          params: IdParams,
          querystring: SystemInfoQuery,
          response: {
            200: Type.Union([SystemInfo, Type.Record(Type.String(), SystemInfo)]),
            ...adminErrors,
          },
        },
      },
      async (request) =>
        logFailedCheck(
          request,
          request.params.id,
          clusterSystemInfo(db, box, request.params.id, request.query, { app: appScope(request) }),
        ),
    );

    api.get(
      '/searchCluster/:id/status',
      {
        schema: {
          tags,
          operationId: 'checkSearchCluster',
          summary: 'Run the connectivity check now (a failed check answers 400 with details.steps)',
          params: IdParams,
          response: { 200: sharedRef(ClusterStatusSchema), ...adminErrors },
        },
      },
      async (request) =>
        logFailedCheck(
          request,
          request.params.id,
          clusterStatus(db, box, request.params.id, { app: appScope(request), recordCheck }),
        ),
    );
  },
};

/** Logs a failed connectivity check for operators: its steps say why, and carry no secret. */
async function logFailedCheck<T>(request: FastifyRequest, cluster: string, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof ClusterCheckError) {
      request.log.info({ cluster, code: error.code, steps: error.steps }, 'search-cluster check failed');
    }
    throw error;
  }
}
