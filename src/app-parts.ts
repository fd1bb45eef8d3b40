// The stateful parts of the app, built once in buildApp and handed to the areas that use
// them; tests reach them as `app.parts` instead of through module state.
import type { TokenService } from './oauth/token-service.js';
import type { RulesParts } from './rules/rules-parts.js';
import type { TypeaheadParts } from './typeahead/typeahead-parts.js';

export interface AppParts {
  /** Issues and verifies the access tokens of the Rules API. */
  readonly oauth: TokenService;
  /** Webhook delivery and the bulk runner of the Rules API. */
  readonly rules: RulesParts;
  /** Suggestion indexes, the change feed between nodes and the top-searched schedule. */
  readonly typeahead: TypeaheadParts;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The stateful parts of this app (see AppParts). */
    parts: AppParts;
  }
}
