// Typeahead: instance management and search logs on the Administrative API, and the
// suggestions of the Typeahead API, answered from memory by this node's `typeahead` parts.
import type { Area } from '../http/area.js';
import { instanceRoutes, instanceTokenRoutes } from './instance-routes.js';
import { InstanceSchema, SearchCountsSchema, TermsSchema } from './schemas.js';
import { suggestionsRoutes } from './suggestions-endpoint.js';
import { searchLogRoutes, termsRoutes } from './terms-routes.js';
import type { TypeaheadParts } from './typeahead-parts.js';

export const typeaheadArea = (typeahead: TypeaheadParts): Area => ({
  name: 'typeahead',
  schemas: [InstanceSchema, TermsSchema, SearchCountsSchema],
  async admin(api, ctx) {
    instanceRoutes(api, ctx, typeahead);
    instanceTokenRoutes(api, ctx, typeahead);
    termsRoutes(api, ctx, typeahead);
    await searchLogRoutes(api, ctx, typeahead);
  },

  async public(app) {
    await suggestionsRoutes(app, typeahead.registry, typeahead.tokens);
  },
});
