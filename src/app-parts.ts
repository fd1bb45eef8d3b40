import type { TypeaheadParts } from './typeahead/typeahead-parts.js';

/**
 * The stateful parts of one app, built in buildApp and handed to the areas that use them;
 * `app.parts` gives tests a typed handle on them instead of module state.
 */
export interface AppParts {
  readonly typeahead: TypeaheadParts;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The stateful parts of this app (see AppParts). */
    parts: AppParts;
  }
}
