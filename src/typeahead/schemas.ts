import { type Static, type TSchema, Type } from 'typebox';

/** Instance ids double as host labels (`shop-en.typeahead.example.com`), so they are DNS labels. */
export const InstanceId = Type.String({
  minLength: 1,
  maxLength: 63,
  pattern: '^[a-z0-9]([a-z0-9-]*[a-z0-9])?$',
  description: 'lowercase letters, digits and inner "-" (a DNS label)',
  examples: ['shop-en'],
});

const settings = {
  allowedOrigins: Type.Array(
    Type.String({ minLength: 1, maxLength: 512, pattern: '^(\\*|https?://[^\\s/]+)$' }),
    {
      maxItems: 100,
      description: 'origins allowed by CORS, or ["*"] for any',
      examples: [['https://shop.example.com']],
    },
  ),
  topTermsWindowDays: Type.Integer({ minimum: 1, maximum: 365 }),
  minCount: Type.Integer({ minimum: 1, maximum: 1_000_000_000 }),
  cacheMaxAgeSeconds: Type.Integer({ minimum: 0, maximum: 86_400 }),
};

/** The largest `minHits`: a search finding more documents than this always counts. */
export const MAX_MIN_HITS = 1_000_000;

/**
 * The fewest documents a search logged with its hits must have found to teach typeahead
 * (Algolia's name); 0 counts every search. Searches logged without hits always count.
 */
const minHits = Type.Integer({
  minimum: 0,
  maximum: MAX_MIN_HITS,
  description:
    'A search logged with its number of hits counts only when it found at least this many documents (0: every search); default 1',
});

/** What an instance gets for a setting its creation leaves out. */
export const SETTING_DEFAULTS = {
  allowedOrigins: ['*'],
  topTermsWindowDays: 30,
  minCount: 3,
  cacheMaxAgeSeconds: 60,
  minHits: 1,
};

// The defaults belong to creation only: a PATCH leaves out what it does not change.
function withDefault<Schema extends TSchema>(schema: Schema, value: unknown): Schema {
  return { ...schema, default: value };
}

export const InstanceCreateBody = Type.Object(
  {
    id: Type.Optional(InstanceId),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    allowedOrigins: Type.Optional(withDefault(settings.allowedOrigins, SETTING_DEFAULTS.allowedOrigins)),
    topTermsWindowDays: Type.Optional(
      withDefault(settings.topTermsWindowDays, SETTING_DEFAULTS.topTermsWindowDays),
    ),
    minCount: Type.Optional(withDefault(settings.minCount, SETTING_DEFAULTS.minCount)),
    cacheMaxAgeSeconds: Type.Optional(
      withDefault(settings.cacheMaxAgeSeconds, SETTING_DEFAULTS.cacheMaxAgeSeconds),
    ),
    minHits: Type.Optional(withDefault(minHits, SETTING_DEFAULTS.minHits)),
  },
  { additionalProperties: false, examples: [{ id: 'shop-en', name: 'Shop (English)' }] },
);

export const InstancePatchBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    allowedOrigins: Type.Optional(settings.allowedOrigins),
    topTermsWindowDays: Type.Optional(settings.topTermsWindowDays),
    minCount: Type.Optional(settings.minCount),
    cacheMaxAgeSeconds: Type.Optional(settings.cacheMaxAgeSeconds),
    minHits: Type.Optional(minHits),
  },
  {
    additionalProperties: false,
    examples: [{ name: 'Shop (English)', allowedOrigins: ['https://shop.example.com'] }],
  },
);

export const InstanceSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    allowedOrigins: Type.Array(Type.String()),
    topTermsWindowDays: Type.Integer(),
    minCount: Type.Integer(),
    cacheMaxAgeSeconds: Type.Integer(),
    minHits: Type.Integer(),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  {
    $id: 'TypeaheadInstance',
    examples: [
      {
        id: 'shop-en',
        name: 'Shop (English)',
        allowedOrigins: ['*'],
        topTermsWindowDays: 30,
        minCount: 3,
        cacheMaxAgeSeconds: 60,
        minHits: 1,
        createdAt: '2026-11-24T06:28:36.712Z',
        updatedAt: '2026-11-24T06:28:36.712Z',
      },
    ],
  },
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
  {
    additionalProperties: false,
    examples: [{ included: ['Electric kettle', 'Elastic band'], excluded: [] }],
  },
);

const TermLists = Type.Object(
  { included: Type.Optional(TermList), excluded: Type.Optional(TermList) },
  { additionalProperties: false },
);

export const TermsPatchBody = Type.Object(
  { add: Type.Optional(TermLists), remove: Type.Optional(TermLists) },
  {
    additionalProperties: false,
    examples: [{ add: { included: ['Egg timer'] }, remove: { included: ['Elastic band'] } }],
  },
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
  {
    $id: 'TypeaheadTerms',
    examples: [
      {
        included: ['Elastic band', 'Electric kettle'],
        excluded: [],
        topSearched: [{ term: 'electric kettle', count: 12 }],
        counts: { custom: 2, topSearched: 1, served: 3 },
      },
    ],
  },
);

export const SearchLogEntry = Type.Object(
  {
    query: Type.String({ maxLength: 1000 }),
    timestamp: Type.Optional(Type.String({ description: 'ISO 8601; default now' })),
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
    hits: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1e15,
        description: "How many documents the search found; below the instance's minHits it is not counted",
      }),
    ),
  },
  { additionalProperties: false },
);

export const MAX_LOG_ENTRIES = 10_000;

export const SearchLogBody = Type.Array(SearchLogEntry, {
  maxItems: MAX_LOG_ENTRIES,
  examples: [
    [
      { query: 'electric kettle', count: 3 },
      { query: 'elastic band', timestamp: '2026-11-21T19:15:31.018Z' },
    ],
  ],
});

export const SearchLogAnswer = Type.Object({ accepted: Type.Integer(), rejected: Type.Integer() });

/** The answer size when a request names no limit (the query schema's default; indexes warm it). */
export const DEFAULT_SUGGESTION_LIMIT = 10;

export const SuggestionsQuery = Type.Object({
  prefix: Type.Optional(Type.String({ maxLength: 1000, examples: ['el'] })),
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

/** An instance as the Objects area exports and imports it: settings and curated terms, no token. */
export const TransferredInstanceSchema = Type.Object(
  {
    id: InstanceId,
    name: Type.String({ minLength: 1, maxLength: 200 }),
    ...settings,
    // Optional: documents exported before the setting existed import with its default.
    minHits: Type.Optional(minHits),
    terms: Type.Object(
      {
        included: Type.Array(Type.String(), { maxItems: 4000 }),
        excluded: Type.Array(Type.String(), { maxItems: 4000 }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type TransferredInstance = Static<typeof TransferredInstanceSchema>;

/** The hours asked of the searches-per-hour read: up to the longest window (365 days). */
export const SearchCountsQuery = Type.Object({
  hours: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 365 * 24,
      description: "How many hours back from the current one; default the instance's top-terms window",
    }),
  ),
});

export const SearchCountsSchema = Type.Object(
  {
    instance: Type.String(),
    hours: Type.Array(
      Type.Object({
        hour: Type.String({ description: 'The hour in UTC, `YYYY-MM-DDTHH`', examples: ['2026-11-24T09'] }),
        count: Type.Integer({ minimum: 0 }),
      }),
      { description: 'Every hour of the range, oldest first, an hour without searches counting 0' },
    ),
    total: Type.Integer({ minimum: 0 }),
  },
  {
    $id: 'TypeaheadSearchCounts',
    examples: [
      {
        instance: 'shop-en',
        hours: [
          { hour: '2026-11-24T08', count: 12 },
          { hour: '2026-11-24T09', count: 0 },
        ],
        total: 12,
      },
    ],
  },
);
export type SearchCounts = Static<typeof SearchCountsSchema>;
