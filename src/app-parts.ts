// The stateful parts of an app, built in buildApp and reachable as `app.parts`
// (tests use it instead of reaching into module state).
import type { RulesParts } from './rules/rules-parts.js';

export interface AppParts {
  rules: RulesParts;
}

declare module 'fastify' {
  interface FastifyInstance {
    parts: AppParts;
  }
}
