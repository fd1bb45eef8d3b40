import { type Static, Type } from 'typebox';

/** Instance ids double as host labels (`shop-en.typeahead.example.com`), so they are DNS labels. */
export const InstanceId = Type.String({
  minLength: 1,
  maxLength: 63,
  pattern: '^[a-z0-9]([a-z0-9-]*[a-z0-9])?$',
  description: 'lowercase letters, digits and inner "-" (a DNS label)',
});

const settings = {
  allowedOrigins: Type.Array(
    Type.String({ minLength: 1, maxLength: 512, pattern: '^(\\*|https?://[^\\s/]+)$' }),
    { maxItems: 100, description: 'origins allowed by CORS, or ["*"] for any' },
  ),
  topTermsWindowDays: Type.Integer({ minimum: 1, maximum: 365 }),
  minCount: Type.Integer({ minimum: 1, maximum: 1_000_000_000 }),
  cacheMaxAgeSeconds: Type.Integer({ minimum: 0, maximum: 86_400 }),
};

export const InstanceCreateBody = Type.Object(
  {
    id: Type.Optional(InstanceId),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    allowedOrigins: Type.Optional(settings.allowedOrigins),
    topTermsWindowDays: Type.Optional(settings.topTermsWindowDays),
    minCount: Type.Optional(settings.minCount),
    cacheMaxAgeSeconds: Type.Optional(settings.cacheMaxAgeSeconds),
  },
  { additionalProperties: false },
);

export const InstancePatchBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    allowedOrigins: Type.Optional(settings.allowedOrigins),
    topTermsWindowDays: Type.Optional(settings.topTermsWindowDays),
    minCount: Type.Optional(settings.minCount),
    cacheMaxAgeSeconds: Type.Optional(settings.cacheMaxAgeSeconds),
  },
  { additionalProperties: false },
);

export const InstanceSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    allowedOrigins: Type.Array(Type.String()),
    topTermsWindowDays: Type.Integer(),
    minCount: Type.Integer(),
    cacheMaxAgeSeconds: Type.Integer(),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { $id: 'TypeaheadInstance' },
);

export const InstanceWithToken = Type.Object({
  ...InstanceSchema.properties,
  embedToken: Type.String({ description: 'shown only here; only its hash is stored' }),
});

export const EmbedTokenAnswer = Type.Object({
  embedToken: Type.String(),
  previousTokenExpiresAt: Type.Union([Type.String(), Type.Null()]),
});

export const RotationQuery = Type.Object({
  graceSeconds: Type.Integer({ minimum: 0, maximum: 86_400, default: 0 }),
});

// Terms are checked one by one by checkTerm (which names the rule broken); the schema
// only bounds the sizes, so that a huge list is refused before any work.
const TermList = Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 10_000 });

export const TermsPutBody = Type.Object(
  { included: TermList, excluded: TermList },
  { additionalProperties: false },
);

const TermLists = Type.Object(
  { included: Type.Optional(TermList), excluded: Type.Optional(TermList) },
  { additionalProperties: false },
);

export const TermsPatchBody = Type.Object(
  { add: Type.Optional(TermLists), remove: Type.Optional(TermLists) },
  { additionalProperties: false },
);

export const TermCounts = Type.Object({
  custom: Type.Integer(),
  topSearched: Type.Integer(),
  served: Type.Integer(),
});

export const TermsSchema = Type.Object(
  {
    included: Type.Array(Type.String()),
    excluded: Type.Array(Type.String()),
    topSearched: Type.Array(Type.Object({ term: Type.String(), count: Type.Integer() })),
    counts: TermCounts,
  },
  { $id: 'TypeaheadTerms' },
);

export const SearchLogEntry = Type.Object(
  {
    query: Type.String({ maxLength: 1000 }),
    timestamp: Type.Optional(Type.String({ description: 'ISO 8601; default now' })),
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  },
  { additionalProperties: false },
);

export const MAX_LOG_ENTRIES = 10_000;

export const SearchLogBody = Type.Array(SearchLogEntry, { maxItems: MAX_LOG_ENTRIES });

export const SearchLogAnswer = Type.Object({ accepted: Type.Integer(), rejected: Type.Integer() });

/** The answer size when a request names no limit (the query schema's default; indexes warm it). */
export const DEFAULT_SUGGESTION_LIMIT = 10;

export const SuggestionsQuery = Type.Object({
  prefix: Type.Optional(Type.String({ maxLength: 1000 })),
  limit: Type.Integer({ minimum: 1, maximum: 5000, default: DEFAULT_SUGGESTION_LIMIT }),
});

export const IdParams = Type.Object({ id: InstanceId });

export type InstanceCreate = Static<typeof InstanceCreateBody>;
export type InstancePatch = Static<typeof InstancePatchBody>;
export type Instance = Static<typeof InstanceSchema>;
export type InstanceWithTokenType = Static<typeof InstanceWithToken>;
export type EmbedTokenAnswerType = Static<typeof EmbedTokenAnswer>;
export type TermsPut = Static<typeof TermsPutBody>;
export type TermsPatch = Static<typeof TermsPatchBody>;
export type Terms = Static<typeof TermsSchema>;
export type TermCountsType = Static<typeof TermCounts>;
export type SearchLogEntryType = Static<typeof SearchLogEntry>;
export type SuggestionsQueryType = Static<typeof SuggestionsQuery>;
