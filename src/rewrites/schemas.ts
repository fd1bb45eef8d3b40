// Query Rewrites API shapes on the wire: what clients send and what we answer.
import Type, { type Static, type TSchema } from 'typebox';
import { PageSchema } from '../listing/page.js';
import { listingQuerySchema, PublishStateSchema } from '../listing/query-schema.js';
import { REWRITE_TYPES } from './rewrite.js';
import { RewriteTypeFields } from './rewrite-content.js';

export const RewriteTypeSchema = Type.Enum(REWRITE_TYPES);
const Nullable = (schema: TSchema) => Type.Union([schema, Type.Null()]);

/** What the listing sorts by. */
export const REWRITE_SORT_PROPERTIES = [
  'type',
  'creationDate',
  'lastModified',
  'createdBy',
  'lastModifiedBy',
  'publishState',
  'effectiveStart',
  'effectiveEnd',
] as const;
export type RewriteSortProperty = (typeof REWRITE_SORT_PROPERTIES)[number];

// The common fields without defaults: no schema on the wire may apply them (Fastify's Ajv
// would fill them into bodies); the content validation applies them.
const CommonFields = {
  description: Type.String({ maxLength: 2000 }),
  tags: Type.Array(Type.String()),
  effectiveStart: Nullable(Type.String({ format: 'date-time' })),
  effectiveEnd: Nullable(Type.String({ format: 'date-time' })),
  deleted: Type.Boolean({ description: 'Marked for deletion at the next publish.' }),
};

// Every kind's own fields, optional: one flat object, as the rules' schemas do (no two kinds
// share a field name).
const { synonym, misspelling, phrase, headTail, removeWords } = RewriteTypeFields;
const KindFields = {
  input: synonym.input,
  synonyms: Type.Optional(synonym.synonyms),
  misspelling: Type.Optional(misspelling.misspelling),
  correction: Type.Optional(misspelling.correction),
  phrase: Type.Optional(phrase.phrase),
  boost: phrase.boost,
  query: Type.Optional(headTail.query),
  head: Type.Optional(headTail.head),
  words: Type.Optional(removeWords.words),
};

/** A content as answered: `type`, the common fields, and the fields of that kind. */
export const RewriteContentResponse = Type.Object({
  type: RewriteTypeSchema,
  ...CommonFields,
  ...KindFields,
});

/** A rewrite as answered: staging content, read-only fields, live content. */
export const RewriteResponse = Type.Object({
  id: Type.String({ format: 'uuid' }),
  createdBy: Type.String(),
  creationDate: Type.String({ format: 'date-time' }),
  lastModifiedBy: Type.String(),
  lastModified: Type.String({ format: 'date-time' }),
  published: Type.Boolean(),
  publishState: PublishStateSchema,
  markedForDeletion: Type.Boolean(),
  ...RewriteContentResponse.properties,
  liveContent: Type.Union([RewriteContentResponse, Type.Null()]),
});
export type RewriteResponse = Static<typeof RewriteResponse>;

export const RewritePage = PageSchema(RewriteResponse);

// The body schemas document the shape and reject wrong JSON types early; each kind's rules
// are checked by `validateRewriteContent`, which names unknown members (kept, not stripped).
const bodyProperties = {
  description: Type.Optional(CommonFields.description),
  tags: Type.Optional(CommonFields.tags),
  effectiveStart: Type.Optional(CommonFields.effectiveStart),
  effectiveEnd: Type.Optional(CommonFields.effectiveEnd),
  deleted: Type.Optional(CommonFields.deleted),
  ...KindFields,
};

/** `POST /query-rewrites` and bulk create. */
export const RewriteCreateBody = Type.Object({ ...bodyProperties, type: Type.String() });
export type RewriteCreateBody = Static<typeof RewriteCreateBody>;

/** `PUT /query-rewrites/{id}`: `type` may be left out (it cannot change). */
export const RewriteUpdateBody = Type.Object({ ...bodyProperties, type: Type.Optional(Type.String()) });
export type RewriteUpdateBody = Static<typeof RewriteUpdateBody>;

/** `GET /query-rewrites`: the shared listing parameters; rewrites have no filters of their own. */
export const RewriteListingQuery = listingQuerySchema({
  sortProperties: REWRITE_SORT_PROPERTIES,
  relevance: true,
  filters: {},
  after: {},
});
export type RewriteListingQuery = Static<typeof RewriteListingQuery>;

/** `POST /query-rewrites/bulk`: each item is checked as it is processed, its failure recorded. */
export const RewriteBulkRequest = Type.Object({
  create: Type.Optional(Type.Array(Type.Unknown())),
  update: Type.Optional(Type.Array(Type.Unknown())),
  delete: Type.Optional(Type.Array(Type.String())),
  publish: Type.Optional(Type.Array(Type.String())),
});
export type RewriteBulkRequest = Static<typeof RewriteBulkRequest>;

export const RewriteBulkResult = Type.Object({
  status: Type.Literal('DONE'),
  counts: Type.Object({
    created: Type.Integer(),
    updated: Type.Integer(),
    deleted: Type.Integer(),
    published: Type.Integer(),
    failed: Type.Integer(),
  }),
  created: Type.Array(Type.String({ description: 'Ids of the created rewrites, in request order.' })),
  errors: Type.Array(
    Type.Object({
      operation: Type.Enum(['create', 'update', 'delete', 'publish']),
      index: Type.Integer(),
      id: Type.Optional(Type.String()),
      message: Type.String(),
    }),
  ),
});
export type RewriteBulkResult = Static<typeof RewriteBulkResult>;
