// Rules API shapes on the wire: what clients send and what we answer.
import Type, { type Static, type TOptional, type TProperties, type TSchema } from 'typebox';
import { errorMessage } from '../http/error-message.js';
import { listingQuerySchema, PublishStateSchema } from '../listing/query-schema.js';
import { changedRule, newRule, publishedRule, RULE_ID } from './examples.js';
import { EXTRA_FIELDS, SORT_PROPERTIES } from './listing-terms.js';
import {
  CONTENT_TYPES,
  CommonContentFields,
  ContentInputSchemas,
  RULE_TYPES,
  TypeFields,
} from './rule-content.js';

export const RuleTypeSchema = Type.Enum(RULE_TYPES);
export const ContentTypeSchema = Type.Enum(CONTENT_TYPES);
export { PublishStateSchema };

/** Fields we answer but never take from a body; a PUT carrying them back ignores them. */
export const READ_ONLY_FIELDS = [
  'id',
  'createdBy',
  'creationDate',
  'lastModifiedBy',
  'lastModified',
  'published',
  'publishState',
  'markedForDeletion',
  'liveContent',
  'targetedDocuments',
  'conflicts',
  'conflictsTruncated',
  'isPendingBulkOperation',
  'stagingSyncStatus',
  'liveSyncStatus',
] as const;

/** Fields set once at creation; an update may repeat them but not change them. */
export const IDENTITY_FIELDS = ['type', 'externalId', 'contentType', 'migratedId'] as const;

const ExternalId = Type.String({ minLength: 1, maxLength: 200 });
const Nullable = (schema: TSchema) => Type.Union([schema, Type.Null()]);

// Every type's own fields, optional: one flat object serialises fast and reads
// well in the OpenAPI document, where a union of six shapes would not. Without
// defaults, as no schema on the wire may apply them: Fastify's Ajv fills them
// into bodies and its serializer into answers, which would give every rule
// every type's defaults (a `boost` on a blockList). `validateRuleContent`
// applies the defaults of the rule's own type.
const AnyTypeFields = allOptional(
  withoutDefaults({
    ...TypeFields.blockList,
    ...TypeFields.boostList,
    ...TypeFields.buryList,
    ...TypeFields.pinned,
    ...TypeFields.redirect,
    ...TypeFields.banner,
    ...TypeFields.filterList,
    ...TypeFields.boostAttributes,
    ...TypeFields.setParams,
    ...TypeFields.responseValue,
    ...TypeFields.setFacetList,
  }),
);
const CommonFields = withoutDefaults(CommonContentFields);

/** A content as answered: the common fields, `type`, and the fields of that type. */
export const RuleContentResponse = Type.Object({
  type: RuleTypeSchema,
  ...CommonFields,
  ...AnyTypeFields,
});

export const TargetedDocumentSchema = Type.Object({ fieldName: Type.String(), value: Type.String() });
export const RuleConflictSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: RuleTypeSchema,
  reason: Type.String(),
});
export const SyncStatusSchema = Type.Object({
  version: Type.Integer(),
  lastSyncedVersion: Nullable(Type.Integer()),
  status: Type.Enum(['SYNCED', 'PENDING', 'FAILED', 'NOT_CONFIGURED']),
  lastSyncedAt: Nullable(Type.String({ format: 'date-time' })),
});

/** A rule as answered: staging content, read-only fields, live content, extras when asked. */
export const RuleResponse = Type.Object({
  id: Type.String({ format: 'uuid' }),
  externalId: Nullable(ExternalId),
  contentType: ContentTypeSchema,
  createdBy: Type.String(),
  creationDate: Type.String({ format: 'date-time' }),
  lastModifiedBy: Type.String(),
  lastModified: Type.String({ format: 'date-time' }),
  published: Type.Boolean(),
  publishState: PublishStateSchema,
  markedForDeletion: Type.Boolean(),
  ...RuleContentResponse.properties,
  liveContent: Type.Union([RuleContentResponse, Type.Null()]),
  targetedDocuments: Type.Optional(Type.Array(TargetedDocumentSchema)),
  conflicts: Type.Optional(Type.Array(RuleConflictSchema)),
  conflictsTruncated: Type.Optional(
    Type.Boolean({ description: 'With conflicts: true when a cap was reached and there may be more.' }),
  ),
  isPendingBulkOperation: Type.Optional(Type.Boolean()),
  stagingSyncStatus: Type.Optional(SyncStatusSchema),
  liveSyncStatus: Type.Optional(SyncStatusSchema),
  migratedId: Type.Optional(Nullable(ExternalId)),
});
export type RuleResponse = Static<typeof RuleResponse>;

// The body schemas document the shape and reject wrong JSON types early; the
// rules of each type are checked by `validateRuleContent`. Unknown members are
// kept, not stripped, so that validation can name them.
const bodyProperties = {
  ...Object.fromEntries(
    Object.entries({ ...CommonFields, ...AnyTypeFields }).map(([key, schema]) => [
      key,
      Type.Optional(schema),
    ]),
  ),
  name: CommonFields.name,
  // A set-params entry may leave out its value (a removal) and its policy (replace).
  params: Type.Optional(withoutDefaults(ContentInputSchemas.setParams.properties.params!)),
  // Sent partially ({ queries } alone); the content validation applies the defaults.
  conditions: Type.Optional(Type.Partial(CommonFields.conditions)),
  externalId: Type.Optional(Nullable(ExternalId)),
  contentType: Type.Optional(ContentTypeSchema),
  migratedId: Type.Optional(Nullable(ExternalId)),
  ...Object.fromEntries(READ_ONLY_FIELDS.map((key) => [key, Type.Optional(Type.Unknown())])),
};

/** `POST /em-rules` and bulk create. */
export const RuleCreateBody = Type.Object({ ...bodyProperties, type: Type.String() });
export type RuleCreateBody = Static<typeof RuleCreateBody>;

/** `PUT /em-rules/{id}`: `type` may be left out (it cannot change). */
export const RuleUpdateBody = Type.Object({ ...bodyProperties, type: Type.Optional(Type.String()) });
export type RuleUpdateBody = Static<typeof RuleUpdateBody>;

// The shapes the routes use, with examples. `Rule` is named by its `$id` so that the OpenAPI
// document writes it once (as `Rule`) and clients get a named type. It stays inline in each
// route's schema rather than shared (`addSchema`): every serializer of every route is built
// with all shared schemas, and this one made building the app twice as costly.
export const RuleSchema = Type.Object(RuleResponse.properties, { $id: 'Rule', examples: [publishedRule] });
export const RuleCreateSchema = Type.Object(RuleCreateBody.properties, {
  $id: 'RuleCreate',
  examples: [newRule],
});
export const RuleUpdateSchema = Type.Object(RuleUpdateBody.properties, { examples: [changedRule] });

const List = Type.Array(Type.String());

// What the listing's `fields` may name (FUSION_SYNC_STATUS is PLATFORM_SYNC_STATUS).
const Fields = Type.Array(
  Type.Enum(
    [...EXTRA_FIELDS, 'FUSION_SYNC_STATUS'],
    errorMessage(`must be among ${EXTRA_FIELDS.join(', ')}`),
  ),
);

/** `GET /em-rules`: the shared listing parameters, and the rules' own filters and `fields`. */
export const ListingQuery = listingQuerySchema({
  sortProperties: SORT_PROPERTIES,
  relevance: true,
  filters: {
    tags: Type.Optional(Type.Array(Type.String(), { examples: [['sale']] })),
    groups: Type.Optional(List),
    targetedDocumentId: Type.Optional(Type.String()),
    targetedDocumentFieldName: Type.Optional(Type.String()),
    contentType: Type.Optional(ContentTypeSchema),
  },
  after: { fields: Type.Optional(Fields) },
  examples: { types: ['blockList', 'pinned'], sort: ['name', 'asc'] },
});
export type ListingQuery = Static<typeof ListingQuery>;

/** `POST /em-rules/bulk`: each item is checked as it is processed, its failure recorded. */
export const BulkRequest = Type.Object(
  {
    create: Type.Optional(Type.Array(Type.Unknown())),
    update: Type.Optional(Type.Array(Type.Unknown())),
    delete: Type.Optional(Type.Array(Type.String())),
    publish: Type.Optional(Type.Array(Type.String())),
  },
  {
    examples: [
      {
        create: [{ type: 'blockList', name: 'Block P2', fieldName: 'id', fieldValues: ['P2'] }],
        publish: [RULE_ID],
      },
    ],
  },
);
export type BulkRequest = Static<typeof BulkRequest>;

/** `GET /em-rules/{id}`: the extras asked for, as in the listing. */
export const FieldsQuery = Type.Object({ fields: Type.Optional(Fields) });
export type FieldsQuery = Static<typeof FieldsQuery>;

function allOptional<Properties extends TProperties>(
  properties: Properties,
): { [Key in keyof Properties]: TOptional<Properties[Key]> } {
  const optional = Object.entries(properties).map(([key, schema]) => [key, Type.Optional(schema)]);
  // Object.fromEntries forgets the keys; the mapped type restores what the loop does.
  return Object.fromEntries(optional) as { [Key in keyof Properties]: TOptional<Properties[Key]> };
}

function withoutDefaults<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(withoutDefaults) as T;
  if (schema === null || typeof schema !== 'object') return schema;
  // TypeBox keeps its kind markers in non-enumerable keys; copy descriptors to keep them.
  const copy = Object.create(Object.getPrototypeOf(schema)) as T;
  for (const key of Reflect.ownKeys(schema)) {
    if (key === 'default') continue;
    const descriptor = Object.getOwnPropertyDescriptor(schema, key)!;
    Object.defineProperty(copy, key, { ...descriptor, value: withoutDefaults(descriptor.value) });
  }
  return copy;
}
