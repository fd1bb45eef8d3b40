// The stateful parts of the app, built once in buildApp and handed to the areas that use
// them; tests reach them as `app.parts` instead of through module state.
import type { AnalyticsRollup } from './analytics/rollup-job.js';
import type { EvaluationParts } from './evaluation/evaluation-parts.js';
import type { HistoryRetention } from './history/retention.js';
import type { EarlyAnswers } from './http/early-answers.js';
import type { FailureLimiter } from './http/rate-limiter.js';
import type { Shutdown } from './http/shutdown.js';
import type { TokenService } from './oauth/token-service.js';
import type { QueryParts } from './query/query-parts.js';
import type { RulesParts } from './rules/rules-parts.js';
import type { SignalsParts } from './signals/signals-parts.js';
import type { PlannerStatistics } from './storage/planner-statistics.js';
import type { TypeaheadParts } from './typeahead/typeahead-parts.js';
import type { UsersParts } from './users/users-parts.js';

export interface AppParts {
  /** Failed admin logins and failed token requests per client, counted in the database. */
  readonly limits: { readonly adminLogin: FailureLimiter; readonly tokenRequest: FailureLimiter };
  /** Users' passwords (HTTP Basic, signing in) and the console's sessions. */
  readonly users: UsersParts;
  /** Issues and verifies the access tokens of the Rules API. */
  readonly oauth: TokenService;
  /** Webhook delivery and the bulk runner of the Rules API. */
  readonly rules: RulesParts;
  /** Suggestion indexes, the change feed between nodes and the top-searched schedule. */
  readonly typeahead: TypeaheadParts;
  /** Compiled live rules and rewrites per studio, kept in step with every node's changes. */
  readonly evaluation: EvaluationParts;
  /** The hourly pruning of history events past the retention. */
  readonly history: HistoryRetention;
  /** Live nodes of the clusters queried, connections to Solr, the search-log batch. */
  readonly query: QueryParts;
  /** The analytics rollups of the raw signals, rolled every few seconds on one node. */
  readonly analytics: AnalyticsRollup;
  /** The response signals' batch, the shopper-hash key, the signals' retention job. */
  readonly signals: SignalsParts;
  /** The planner's statistics of the large tables, refreshed after bulk writes and imports. */
  readonly statistics: PlannerStatistics;
  /** The paths answered before routing (suggestions, link checks) and how often they were. */
  readonly early: EarlyAnswers;
  /** What ends the requests still under way when a stop's grace period runs out. */
  readonly shutdown: Shutdown;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The stateful parts of this app (see AppParts). */
    parts: AppParts;
  }
}
