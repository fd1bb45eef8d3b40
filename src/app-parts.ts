// The stateful parts of the app, built once in buildApp and handed to the areas that use
// them; tests reach them as `app.parts` instead of through module state.
import type { TokenService } from './oauth/token-service.js';

export interface AppParts {
  /** Issues and verifies the access tokens of the Rules API. */
  oauth: TokenService;
}

declare module 'fastify' {
  interface FastifyInstance {
    parts: AppParts;
  }
}
