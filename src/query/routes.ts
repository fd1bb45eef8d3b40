// Query profiles and their keys (Administrative API, app-scoped) and the query endpoint
// (a profile's search-only key, a user's Basic credentials or console session).

import type { EvaluationParts } from '../evaluation/evaluation-parts.js';
import { EvaluationService } from '../evaluation/service.js';
import { experimentRoutes } from '../experiments/routes.js';
import { ExperimentBody, ExperimentSchema, NewExperimentBody, PromoteBody } from '../experiments/schemas.js';
import type { Area } from '../http/area.js';
import { keyRoutes, profileRoutes } from './profile-routes.js';
import { queryRoutes, type UserCheck } from './query-endpoint.js';
import type { QueryParts } from './query-parts.js';
import { NewQueryProfileBody, QueryProfileBody, QueryProfileSchema } from './schemas.js';
import { QueryService } from './service.js';

export function queryArea(parts: QueryParts, evaluationParts: EvaluationParts, userCheck: UserCheck): Area {
  return {
    name: 'query',
    schemas: [
      QueryProfileSchema,
      QueryProfileBody,
      NewQueryProfileBody,
      ExperimentSchema,
      ExperimentBody,
      NewExperimentBody,
      PromoteBody,
    ],
    admin(api, ctx) {
      // App-scoped only: profiles live in an app, like Fusion's.
      if (!api.prefix.includes(':app')) return;
      profileRoutes(api, ctx, parts);
      keyRoutes(api, ctx, parts);
      experimentRoutes(api, ctx, parts);
    },
    async public(root, ctx) {
      const service = new QueryService(parts, new EvaluationService(evaluationParts, ctx.now), ctx.store.db);
      await queryRoutes(root, service, parts.served, userCheck);
    },
  };
}
